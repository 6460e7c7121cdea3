package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/uid"
)

func (h *policyHolder) rules() []hitl.Rule {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refresh()
	return h.state.Rules
}

// Policies loads, sets and applies the approval policy and learns rules.
type Policies struct {
	store      PoliciesStore
	clock      hitl.Clock
	access     access.Access
	notifier   hitl.Notifier
	parse      policy.CommandParser // parses shell command lines (nil: every shell operation asks)
	enforce    string
	learnedTTL time.Duration // how long a learned rule holds
	callbacks  CallbackCheck
	policy     policyHolder
	guard      gate
	questions  asker // asks the approval a decision calls for
}

// PoliciesStore is what Policies read and write: the policy and learned
// rules, and the log its decisions are recorded on.
type PoliciesStore interface {
	hitl.PolicyStore
	EventAppender
}

// asker is Questions as Policies call it: an approval the policy asked
// for is created with its operation, approvers and quorum.
type asker interface {
	create(ctx context.Context, runID string, n hitl.NewQuestion, touch func(*hitl.Question)) (*hitl.Question, bool, error)
}

// PoliciesConfig is what Policies use (ServiceConfig says what each
// field does). Questions is where they ask; the Policies become its
// policy (the reminder plan of a rule, "always allow").
type PoliciesConfig struct {
	Store        PoliciesStore
	Clock        hitl.Clock
	Access       access.Access
	Notifier     hitl.Notifier
	ParseCommand policy.CommandParser
	LearnedTTL   time.Duration
	Enforce      string
	Callbacks    CallbackCheck
	Guard        *Guard
	Questions    *Questions
}

// NewPolicies returns the approval policy's part, and makes it the policy
// of cfg.Questions.
func NewPolicies(cfg PoliciesConfig) *Policies {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	if cfg.LearnedTTL <= 0 {
		cfg.LearnedTTL = hitl.DefaultLearnedTTL
	}
	p := &Policies{store: cfg.Store, clock: cfg.Clock, access: cfg.Access, notifier: cfg.Notifier, parse: cfg.ParseCommand,
		enforce: cfg.Enforce, learnedTTL: cfg.LearnedTTL, callbacks: callbacksOf(cfg.Callbacks), guard: cfg.Guard}
	if cfg.Questions != nil {
		p.questions = cfg.Questions
		cfg.Questions.teach(p)
	}
	return p
}

// rules are the configured rules as they stand.
func (s *Policies) rules() []hitl.Rule { return s.policy.rules() }

// HashRules identifies a configuration's rules.
func HashRules(rules []hitl.Rule) string {
	b, _ := json.Marshal(rules)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// LoadPolicy reads the stored policy, or takes the file's rules when
// nothing is stored or the file changed since the last PUT. Call it once
// at start, before serving.
func (s *Policies) LoadPolicy(ctx context.Context, fileRules []hitl.Rule) error {
	if err := policy.ValidatePolicy(hitl.Policy{Rules: fileRules}); err != nil {
		return fault.Errorf(fault.EINVALID, "policy: %s", fault.Message(err))
	}
	hash := HashRules(fileRules)
	s.policy.mu.Lock()
	defer s.policy.mu.Unlock()
	s.policy.follow(s.notifier, s.store.PolicyState)
	st, err := s.store.PolicyState(ctx)
	if err != nil {
		return err
	}
	if st == nil || st.FileHash != hash {
		next := hitl.PolicyState{Rules: fileRules, FileHash: hash}
		var was []hitl.Rule
		if st != nil {
			was = st.Rules
		}
		var change *hitl.Event
		if diff := policy.DiffRules(was, fileRules); len(diff) > 0 {
			change = s.policyChange(ctx, "config", diff)
		}
		if err := s.store.PutPolicyState(ctx, &next, change); err != nil {
			return err
		}
		st = &next
		defer s.notifier.Publish(policyKey)
		if change != nil {
			defer s.notifier.Publish("")
		}
	}
	s.policy.state, s.policy.fileHash = *st, hash
	return nil
}

// Policy returns the configured policy (GET /api/policy, docs/protocol.md#approvals).
// Learned rules are listed by LearnedRules.
func (s *Policies) Policy(ctx context.Context) (hitl.Policy, error) {
	rules := s.rules()
	if rules == nil {
		rules = []hitl.Rule{}
	}
	return hitl.Policy{Rules: append([]hitl.Rule(nil), rules...), Default: hitl.DefaultPolicy()}, nil
}

// SetPolicy replaces the configured rules (PUT /api/policy,
// docs/protocol.md#approvals), for admins. It is stored: it survives a restart and
// beats the config file until the file's rules change.
func (s *Policies) SetPolicy(ctx context.Context, rules []hitl.Rule) (hitl.Policy, error) {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionAudit, nil); err != nil {
		return hitl.Policy{}, s.guard.refused(ctx, p, auth.ActionAudit, &hitl.Question{}, fault.Errorf(fault.EFORBIDDEN, "%s lacks the admin scope: only admins set the policy", p.ID))
	}
	if err := policy.ValidatePolicy(hitl.Policy{Rules: rules}); err != nil {
		return hitl.Policy{}, err
	}
	now := s.clock.Now()
	s.policy.mu.Lock()
	diff := policy.DiffRules(s.policy.state.Rules, rules)
	next := hitl.PolicyState{Rules: append([]hitl.Rule(nil), rules...), FileHash: s.policy.fileHash, UpdatedBy: p.ID, UpdatedAt: &now}
	if err := s.store.PutPolicyState(ctx, &next, s.policyChange(ctx, p.ID, diff)); err != nil {
		s.policy.mu.Unlock()
		return hitl.Policy{}, err
	}
	s.policy.state = next
	s.policy.mu.Unlock()
	s.notifier.Publish(policyKey) // other processes sharing the store reload it
	s.notifier.Publish("")
	return s.Policy(ctx)
}

// agentOf is the agent an operation is decided and learned for: the
// principal that asks, and the one local person of a tokenless server
// whatever its user name ("local").
func agentOf(p auth.Principal) string { return hitl.PersonOf(p.ID) }

// AgentName is the agent a person names: a token's name ("ci") is its
// principal (api:ci); a principal id stays as it is; the local person is
// one agent.
func AgentName(name string) string {
	if !strings.Contains(name, ":") && name != "local" {
		return "api:" + name
	}
	return hitl.PersonOf(name)
}

// decider is the policy as it stands, with the learned rules in the store.
func (s *Policies) decider(ctx context.Context) policy.Decider {
	return policy.Decider{Rules: s.policy.rules(), Parse: s.parse, Now: s.clock.Now(),
		Learned: func(k hitl.LearnedRuleKey) (*hitl.LearnedRule, error) { return s.store.LearnedRule(ctx, k) }}
}

// Decide applies the policy to op as the principal in ctx asks it: the
// agent is the principal, never what the request says.
func (s *Policies) Decide(ctx context.Context, op hitl.Operation) (hitl.Decision, error) {
	op.Agent = agentOf(auth.PrincipalFrom(ctx))
	if err := policy.ValidateOperation(&op); err != nil {
		return hitl.Decision{}, err
	}
	d, err := s.decider(ctx).Decide(op)
	if d.Grant != nil {
		d.Grant.Enforce = s.enforce
	}
	return d, err
}

// CheckOperation decides req as RequestOperation would, creating nothing
// (hitl policy check). An agent checks as itself; a principal that may
// answer (or an admin) may name another agent in req.Agent.
func (s *Policies) CheckOperation(ctx context.Context, req hitl.ApprovalRequest) (hitl.Decision, error) {
	p := auth.PrincipalFrom(ctx)
	agent := agentOf(p)
	if req.Agent != "" && req.Agent != p.ID && req.Agent != agent {
		if !p.OverseesPolicy() {
			return hitl.Decision{}, s.guard.refused(ctx, p, auth.ActionRead, &hitl.Question{}, fault.Errorf(fault.EFORBIDDEN, "%s may check the policy only as itself: naming another agent needs the answer scope", p.ID))
		}
		agent = AgentName(req.Agent)
	} else if err := s.access.Authorize(p, auth.ActionAsk, nil); err != nil && !p.Has(auth.ScopeAnswer) {
		return hitl.Decision{}, s.guard.refused(ctx, p, auth.ActionAsk, &hitl.Question{}, err)
	}
	op := req.Operation
	op.Agent = agent
	if err := policy.ValidateOperation(&op); err != nil {
		return hitl.Decision{}, err
	}
	return s.decider(ctx).Decide(op)
}

var _ hitl.PolicyService = (*Policies)(nil)

// RequestOperation decides op by policy: allow and deny come back at once
// (and are audited as policy_decision events); ask creates an approval
// question for the rule's approvers and quorum, which the caller waits on.
func (s *Policies) RequestOperation(ctx context.Context, req hitl.ApprovalRequest) (hitl.ApprovalOutcome, error) {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionAsk, nil); err != nil {
		return hitl.ApprovalOutcome{}, s.guard.refused(ctx, p, auth.ActionAsk, &hitl.Question{RunID: req.RunID}, err)
	}
	if err := s.callbacks.Check(req.CallbackURL); err != nil {
		return hitl.ApprovalOutcome{}, err
	}
	d, err := s.Decide(ctx, req.Operation)
	if err != nil {
		return hitl.ApprovalOutcome{}, err
	}
	op := req.Operation
	op.Agent = agentOf(p)
	if d.Effect != hitl.EffectAsk {
		// The decision is its record: none is answered without it.
		if err := s.store.AppendEvent(context.WithoutCancel(ctx), s.policyEvent(ctx, p.ID, string(d.Effect), d.Rule, &op)); err != nil {
			return hitl.ApprovalOutcome{}, err
		}
		s.notifier.Publish("")
		return hitl.ApprovalOutcome{Decision: d}, nil
	}
	run := req.RunID
	if run == "" {
		run = hitl.DefaultRunID("approvals", p)
	}
	n := hitl.NewQuestion{Question: op.Description, Type: hitl.Approval, TimeoutMinutes: req.TimeoutMinutes,
		Channel: req.Channel, IdempotencyKey: req.IdempotencyKey, CallbackURL: req.CallbackURL, Context: &hitl.QuestionContext{Agent: p.ID, CurrentStep: op.Context}}
	q, _, err := s.questions.create(ctx, run, n, func(q *hitl.Question) {
		q.Operation, q.Rule, q.Approvers, q.Quorum = &op, d.Rule, d.Approvers, d.Quorum
		q.Parts, q.Learnable, q.Risks, q.RunGrant = d.Parts, d.Learnable, d.Risks, d.Grant
		if q.Quorum <= 1 {
			q.Quorum = 0
		}
	})
	if err != nil {
		return hitl.ApprovalOutcome{}, err
	}
	return hitl.ApprovalOutcome{Decision: d, QuestionID: q.ID, Question: q}, nil
}

// learnable decides, under the configured policy as it is now, whether a
// person approving q may teach "always allow", and what the rule holds.
// Learned rules are left out: they never change what may be learned.
func (s *Policies) learnable(q *hitl.Question, rules []hitl.Rule) (hitl.LearnedRuleKey, error) {
	if q.Operation == nil {
		return hitl.LearnedRuleKey{}, fault.Errorf(fault.EINVALID, "only an approval of an operation can be always allowed")
	}
	d, err := policy.Decider{Rules: rules, Parse: s.parse, Now: s.clock.Now()}.Decide(*q.Operation)
	if err != nil {
		return hitl.LearnedRuleKey{}, err
	}
	if d.Learnable && len(q.Approvers) == 0 && q.Quorum <= 1 {
		return *d.Teaches, nil
	}
	return hitl.LearnedRuleKey{}, fault.Errorf(fault.EINVALID, "'always allow' cannot apply to %s: %s; approve it once instead", q.ID, whyNotLearnable(q, d))
}

func whyNotLearnable(q *hitl.Question, d hitl.Decision) string {
	switch {
	case len(q.Approvers) > 0 || q.Quorum > 1 || len(d.Approvers) > 0 || d.Quorum > 1:
		return "its policy rule names who approves or how many must, and a learned rule never replaces them"
	case d.Effect == hitl.EffectDeny:
		return "the policy denies it, and a learned rule never overrides a deny"
	case d.Effect == hitl.EffectAllow:
		return "the policy already allows it"
	case q.Operation.Type == hitl.OpShell:
		return "only one simple command the policy fully understands (literal words, arguments it knows safe, no redirection), which no deny, approver or quorum rule matches in any spelling, can be learned (this line has " + partsSummary(d.Parts) + ")"
	}
	return "the policy does not let a person teach it"
}

func partsSummary(parts []hitl.DecisionPart) string {
	var kinds []string
	for _, p := range parts {
		kinds = append(kinds, p.Kind+" "+p.Text)
	}
	return strings.Join(kinds, "; ")
}

// learn stores the rule a person's "approve and always allow" taught:
// exactly key, for the configured time.
func (s *Policies) learn(ctx context.Context, q *hitl.Question, key hitl.LearnedRuleKey, by string) error {
	now := s.clock.Now()
	r := &hitl.LearnedRule{ID: uid.New("r_"), Agent: key.Agent, OpType: key.OpType, Resource: key.Resource,
		CreatedBy: by, QuestionID: q.ID, CreatedAt: now, ExpiresAt: now.Add(s.learnedTTL)}
	if err := s.store.PutLearnedRule(context.WithoutCancel(ctx), r, s.policyEvent(ctx, by, "learned", r.Name(), q.Operation)); err != nil {
		return err
	}
	s.notifier.Publish("")
	return nil
}

// LearnedRules returns a page of learned rules. People who may answer,
// and admins, see every agent's; an agent sees its own.
func (s *Policies) LearnedRules(ctx context.Context, f hitl.LearnedRuleFilter) (hitl.LearnedRulePage, error) {
	p := auth.PrincipalFrom(ctx)
	if !p.OverseesPolicy() {
		if !p.Has(auth.ScopeAsk) || strings.HasPrefix(p.ID, "slack:") {
			return hitl.LearnedRulePage{}, s.guard.refused(ctx, p, auth.ActionRead, &hitl.Question{}, fault.Errorf(fault.EFORBIDDEN,
				"learned rules are shown only to those who answer (slack.answerers, the answer scope) and admins; %s is neither", p.ID))
		}
		f.Agent = agentOf(p) // an agent sees what was taught for it
	} else if f.Agent != "" {
		f.Agent = AgentName(f.Agent)
	}
	page, err := s.store.LearnedRules(ctx, f)
	if page.Rules == nil {
		page.Rules = []*hitl.LearnedRule{}
	}
	return page, err
}

// RevokeRule removes learned rule id. People who may answer, and admins,
// may.
func (s *Policies) RevokeRule(ctx context.Context, id string) (*hitl.LearnedRule, error) {
	p := auth.PrincipalFrom(ctx)
	if !p.OverseesPolicy() {
		return nil, s.guard.refused(ctx, p, auth.ActionAnswer, &hitl.Question{}, access.Lacks(p, auth.ScopeAnswer))
	}
	gone, err := s.store.DeleteLearnedRule(ctx, id, func(gone *hitl.LearnedRule) *hitl.Event {
		return s.policyEvent(ctx, p.ID, "revoked", gone.Name(), nil)
	})
	if err != nil {
		if fault.Code(err) == fault.ENOTFOUND {
			return nil, fault.Errorf(fault.ENOTFOUND, "no learned rule %s (hitl policy rules lists them)", id)
		}
		return nil, err
	}
	s.notifier.Publish("")
	return gone, nil
}

// PruneLearnedRules deletes learned rules that expired (a batch at a time);
// expired rules already decide nothing.
func (s *Policies) PruneLearnedRules(ctx context.Context, limit int) (int, error) {
	return s.store.PruneLearnedRules(ctx, s.clock.Now(), limit)
}

// policyEvent is a policy_decision event (its audit record: AuditOf):
// action is allow, deny (the policy decided alone), learned or revoked;
// rule names the rule. The store appends
// it in the transaction of the change it records.
func (s *Policies) policyEvent(ctx context.Context, actor, action, rule string, op *hitl.Operation) *hitl.Event {
	return withEdge(ctx, &hitl.Event{Type: hitl.EventPolicyDecision, At: s.clock.Now(), Actor: actor, Action: auth.Action(action), Reason: rule, Operation: op})
}

// policyChange is the policy_decision event of a change of the configured
// rules (Action policy_set): who, and the diff; appended with the change.
func (s *Policies) policyChange(ctx context.Context, actor string, diff []string) *hitl.Event {
	return withEdge(ctx, &hitl.Event{Type: hitl.EventPolicyDecision, At: s.clock.Now(), Actor: actor, Action: "policy_set",
		Reason: "the policy was set", Diff: diff})
}

// ruleNamed returns the rule of rules named name (nil for none: the
// default, or a question no rule asked).
func ruleNamed(rules []hitl.Rule, name string) *hitl.Rule {
	if name == "" {
		return nil
	}
	for _, r := range rules {
		if r.Name == name {
			return &r
		}
	}
	return nil
}

// policyHolder keeps the configured policy in memory for decisions. mu is
// held across a change's store write, so changes are applied in the order
// they are stored.
type policyHolder struct {
	mu       sync.Mutex
	state    hitl.PolicyState
	fileHash string

	// A change another process stored is followed (policysync.go).
	notifier hitl.Notifier
	load     func(context.Context) (*hitl.PolicyState, error)
	changed  <-chan struct{}
	unwatch  func()
}
