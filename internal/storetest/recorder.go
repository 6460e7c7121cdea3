package storetest

import (
	"context"
	"time"

	"github.com/hitlbot/hitl"
)

// The recorders below pass each call on to the store they wrap and count
// it by method name (calls): a part of the contract runs on recorded
// stores, so that it can tell which of its interface's methods it never
// called (part.go). They decide nothing.

// questionRec records the calls made to a hitl.QuestionStore.
type questionRec struct {
	s hitl.QuestionStore
	c *calls
}

func (w questionRec) CountQuestions(ctx context.Context, status hitl.Status) (int, error) {
	w.c.add("CountQuestions")
	return w.s.CountQuestions(ctx, status)
}

func (w questionRec) CreateQuestion(ctx context.Context, q *hitl.Question, ev *hitl.Event, admit func(run *hitl.Run) error) (*hitl.Question, bool, error) {
	w.c.add("CreateQuestion")
	return w.s.CreateQuestion(ctx, q, ev, admit)
}

func (w questionRec) DueQuestions(ctx context.Context, now time.Time, limit int) ([]string, error) {
	w.c.add("DueQuestions")
	return w.s.DueQuestions(ctx, now, limit)
}

func (w questionRec) PendingByType(ctx context.Context) (map[hitl.QuestionType]int, uint64, error) {
	w.c.add("PendingByType")
	return w.s.PendingByType(ctx)
}

func (w questionRec) Question(ctx context.Context, id string) (*hitl.Question, error) {
	w.c.add("Question")
	return w.s.Question(ctx, id)
}

func (w questionRec) QuestionByKey(ctx context.Context, runID string, key string) (*hitl.Question, error) {
	w.c.add("QuestionByKey")
	return w.s.QuestionByKey(ctx, runID, key)
}

func (w questionRec) Questions(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	w.c.add("Questions")
	return w.s.Questions(ctx, f)
}

func (w questionRec) SealedQuestions(ctx context.Context) ([]string, error) {
	w.c.add("SealedQuestions")
	return w.s.SealedQuestions(ctx)
}

func (w questionRec) SettledQuestions(ctx context.Context, since time.Time, limit int, cursor string) (hitl.QuestionPage, error) {
	w.c.add("SettledQuestions")
	return w.s.SettledQuestions(ctx, since, limit, cursor)
}

func (w questionRec) UpdateQuestion(ctx context.Context, id string, fn func(q *hitl.Question) (*hitl.Event, error)) (*hitl.Question, error) {
	w.c.add("UpdateQuestion")
	return w.s.UpdateQuestion(ctx, id, fn)
}

func (w questionRec) UpdateQuestions(ctx context.Context, ids []string, fn func(q *hitl.Question) (*hitl.Event, error)) ([]*hitl.Question, []error, error) {
	w.c.add("UpdateQuestions")
	return w.s.UpdateQuestions(ctx, ids, fn)
}

// reminderRec records the calls made to a hitl.ReminderStore.
type reminderRec struct {
	s hitl.ReminderStore
	c *calls
}

func (w reminderRec) DueReminders(ctx context.Context, now time.Time, limit int) ([]string, error) {
	w.c.add("DueReminders")
	return w.s.DueReminders(ctx, now, limit)
}

// runRec records the calls made to a hitl.RunStore.
type runRec struct {
	s hitl.RunStore
	c *calls
}

func (w runRec) Run(ctx context.Context, id string) (*hitl.Run, error) {
	w.c.add("Run")
	return w.s.Run(ctx, id)
}

func (w runRec) Runs(ctx context.Context, active bool, limit int, cursor string) (hitl.RunPage, error) {
	w.c.add("Runs")
	return w.s.Runs(ctx, active, limit, cursor)
}

func (w runRec) RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*hitl.Run, error) {
	w.c.add("RunsByPrefix")
	return w.s.RunsByPrefix(ctx, prefix, limit)
}

func (w runRec) SteerRun(ctx context.Context, id string, key hitl.ControlKey, fn func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	w.c.add("SteerRun")
	return w.s.SteerRun(ctx, id, key, fn)
}

func (w runRec) UpdateRun(ctx context.Context, id string, fn func(run *hitl.Run) (hitl.RunUpdate, error)) (*hitl.Run, error) {
	w.c.add("UpdateRun")
	return w.s.UpdateRun(ctx, id, fn)
}

// eventRec records the calls made to a hitl.EventStore.
type eventRec struct {
	s hitl.EventStore
	c *calls
}

func (w eventRec) AppendEvent(ctx context.Context, ev *hitl.Event) error {
	w.c.add("AppendEvent")
	return w.s.AppendEvent(ctx, ev)
}

func (w eventRec) Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, error) {
	w.c.add("Events")
	return w.s.Events(ctx, after, limit)
}

func (w eventRec) LastSeq(ctx context.Context) (uint64, error) {
	w.c.add("LastSeq")
	return w.s.LastSeq(ctx)
}

func (w eventRec) RunEvents(ctx context.Context, runID string, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	w.c.add("RunEvents")
	return w.s.RunEvents(ctx, runID, after, limit)
}

// policyRec records the calls made to a hitl.PolicyStore.
type policyRec struct {
	s hitl.PolicyStore
	c *calls
}

func (w policyRec) DeleteLearnedRule(ctx context.Context, id string, evOf ...func(*hitl.LearnedRule) *hitl.Event) (*hitl.LearnedRule, error) {
	w.c.add("DeleteLearnedRule")
	return w.s.DeleteLearnedRule(ctx, id, evOf...)
}

func (w policyRec) LearnedRule(ctx context.Context, key hitl.LearnedRuleKey) (*hitl.LearnedRule, error) {
	w.c.add("LearnedRule")
	return w.s.LearnedRule(ctx, key)
}

func (w policyRec) LearnedRules(ctx context.Context, f hitl.LearnedRuleFilter) (hitl.LearnedRulePage, error) {
	w.c.add("LearnedRules")
	return w.s.LearnedRules(ctx, f)
}

func (w policyRec) PolicyState(ctx context.Context) (*hitl.PolicyState, error) {
	w.c.add("PolicyState")
	return w.s.PolicyState(ctx)
}

func (w policyRec) PruneLearnedRules(ctx context.Context, now time.Time, limit int) (int, error) {
	w.c.add("PruneLearnedRules")
	return w.s.PruneLearnedRules(ctx, now, limit)
}

func (w policyRec) PutLearnedRule(ctx context.Context, r *hitl.LearnedRule, evs ...*hitl.Event) error {
	w.c.add("PutLearnedRule")
	return w.s.PutLearnedRule(ctx, r, evs...)
}

func (w policyRec) PutPolicyState(ctx context.Context, st *hitl.PolicyState, evs ...*hitl.Event) error {
	w.c.add("PutPolicyState")
	return w.s.PutPolicyState(ctx, st, evs...)
}

// retentionRec records the calls made to a hitl.RetentionStore.
type retentionRec struct {
	s hitl.RetentionStore
	c *calls
}

func (w retentionRec) Prune(ctx context.Context, before time.Time, limit int) (int, error) {
	w.c.add("Prune")
	return w.s.Prune(ctx, before, limit)
}

// signInRec records the calls made to a hitl.SignInStore.
type signInRec struct {
	s hitl.SignInStore
	c *calls
}

func (w signInRec) DeleteSignIn(ctx context.Context, id string, auditOf ...func(*hitl.SignIn) *hitl.AuditRecord) (*hitl.SignIn, error) {
	w.c.add("DeleteSignIn")
	return w.s.DeleteSignIn(ctx, id, auditOf...)
}

func (w signInRec) PruneSignIns(ctx context.Context, now time.Time, limit int) (int, error) {
	w.c.add("PruneSignIns")
	return w.s.PruneSignIns(ctx, now, limit)
}

func (w signInRec) PutSignIn(ctx context.Context, s *hitl.SignIn, audit ...*hitl.AuditRecord) error {
	w.c.add("PutSignIn")
	return w.s.PutSignIn(ctx, s, audit...)
}

func (w signInRec) SignIn(ctx context.Context, id string) (*hitl.SignIn, error) {
	w.c.add("SignIn")
	return w.s.SignIn(ctx, id)
}

// envelopeRec records the calls made to a hitl.EnvelopeStore.
type envelopeRec struct {
	s hitl.EnvelopeStore
	c *calls
}

func (w envelopeRec) SeeEnvelope(ctx context.Context, now time.Time, window time.Duration, ids ...string) (bool, error) {
	w.c.add("SeeEnvelope")
	return w.s.SeeEnvelope(ctx, now, window, ids...)
}

// webhookRec records the calls made to a hitl.WebhookOutbox.
type webhookRec struct {
	s hitl.WebhookOutbox
	c *calls
}

func (w webhookRec) ClaimWebhooks(ctx context.Context, now time.Time, until time.Time, c hitl.WebhookClaim) ([]hitl.WebhookDelivery, error) {
	w.c.add("ClaimWebhooks")
	return w.s.ClaimWebhooks(ctx, now, until, c)
}

func (w webhookRec) PruneWebhooks(ctx context.Context, before time.Time, limit int) (int, error) {
	w.c.add("PruneWebhooks")
	return w.s.PruneWebhooks(ctx, before, limit)
}

func (w webhookRec) ReplayWebhook(ctx context.Context, seq uint64, now time.Time) (hitl.WebhookDelivery, error) {
	w.c.add("ReplayWebhook")
	return w.s.ReplayWebhook(ctx, seq, now)
}

func (w webhookRec) SettleWebhook(ctx context.Context, d hitl.WebhookDelivery) error {
	w.c.add("SettleWebhook")
	return w.s.SettleWebhook(ctx, d)
}

func (w webhookRec) WebhookDeliveries(ctx context.Context, f hitl.WebhookFilter) ([]hitl.WebhookDelivery, error) {
	w.c.add("WebhookDeliveries")
	return w.s.WebhookDeliveries(ctx, f)
}

func (w webhookRec) WebhookDelivery(ctx context.Context, seq uint64) (hitl.WebhookDelivery, error) {
	w.c.add("WebhookDelivery")
	return w.s.WebhookDelivery(ctx, seq)
}

func (w webhookRec) WebhookStats(ctx context.Context) ([]hitl.WebhookTargetStats, error) {
	w.c.add("WebhookStats")
	return w.s.WebhookStats(ctx)
}

// outboxRec records the calls made to a hitl.Outbox.
type outboxRec struct {
	s hitl.Outbox
	c *calls
}

func (w outboxRec) Complete(ctx context.Context, d hitl.Delivery, rec *hitl.Delivered) error {
	w.c.add("Complete")
	return w.s.Complete(ctx, d, rec)
}

func (w outboxRec) Delivered(ctx context.Context, questionID string) ([]hitl.Delivered, error) {
	w.c.add("Delivered")
	return w.s.Delivered(ctx, questionID)
}

func (w outboxRec) DeliveredAt(ctx context.Context, channel string, ts string) (hitl.Delivered, error) {
	w.c.add("DeliveredAt")
	return w.s.DeliveredAt(ctx, channel, ts)
}

func (w outboxRec) Enqueue(ctx context.Context, cursor uint64, ds []hitl.Delivery) error {
	w.c.add("Enqueue")
	return w.s.Enqueue(ctx, cursor, ds)
}

func (w outboxRec) NextDelivery(ctx context.Context, target string) (hitl.Delivery, error) {
	w.c.add("NextDelivery")
	return w.s.NextDelivery(ctx, target)
}

func (w outboxRec) OutboxCursor(ctx context.Context) (uint64, error) {
	w.c.add("OutboxCursor")
	return w.s.OutboxCursor(ctx)
}

func (w outboxRec) QueueLength(ctx context.Context) (int, error) {
	w.c.add("QueueLength")
	return w.s.QueueLength(ctx)
}

func (w outboxRec) Targets(ctx context.Context, after string, limit int) ([]string, error) {
	w.c.add("Targets")
	return w.s.Targets(ctx, after, limit)
}

// mailRec records the calls made to a hitl.MailOutbox.
type mailRec struct {
	s hitl.MailOutbox
	c *calls
}

func (w mailRec) ClaimMail(ctx context.Context, now time.Time, until time.Time, limit int) ([]hitl.Mail, error) {
	w.c.add("ClaimMail")
	return w.s.ClaimMail(ctx, now, until, limit)
}

func (w mailRec) CompleteMail(ctx context.Context, m hitl.Mail) error {
	w.c.add("CompleteMail")
	return w.s.CompleteMail(ctx, m)
}

func (w mailRec) EnqueueMail(ctx context.Context, cursor uint64, ms []hitl.Mail) error {
	w.c.add("EnqueueMail")
	return w.s.EnqueueMail(ctx, cursor, ms)
}

func (w mailRec) MailCursor(ctx context.Context) (uint64, error) {
	w.c.add("MailCursor")
	return w.s.MailCursor(ctx)
}

func (w mailRec) RetryMail(ctx context.Context, m hitl.Mail) error {
	w.c.add("RetryMail")
	return w.s.RetryMail(ctx, m)
}
