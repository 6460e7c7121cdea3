package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/pgtest"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/postgres"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMigrateToPostgres(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	admin := principaltest.As(ctx, "admin:test")

	// An installation with a bit of everything: questions pending and
	// answered, a steered loop, a learned rule, a delivery queued and one
	// done, a mail queued.
	key := keyFile(t)
	m := startMainNoCleanup(t, func(c *config.Config, _ *Main) { c.DB, c.SealKeyFile = path, key })
	var pending *hitl.Question
	for i := range 5 {
		q, _, err := m.Service.Questions.Create(principaltest.As(ctx, "api:ci"), "run-mig", hitl.NewQuestion{Question: "Q?", Assignees: []string{"U0ALICE"}})
		require.NoError(t, err)
		if i%2 == 0 {
			_, err = m.Service.Questions.Answer(admin, q.ID, hitl.Response{Value: "yes"})
			require.NoError(t, err)
		} else {
			pending = q
		}
	}
	checkpointOut(t, cli(admin, m, "", "checkpoint", "--run", "loop-mig", "--iter", "1", "--max", "3"))
	require.Equal(t, 0, cli(admin, m, "", "pause", "loop-mig").code)
	require.NoError(t, m.DB.PutLearnedRule(ctx, &hitl.LearnedRule{ID: "r_1", Agent: "api:ci", OpType: hitl.OpShell, Resource: "make test",
		CreatedBy: "slack:U0ALICE", CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}))
	ds := []hitl.Delivery{{Kind: "post", QuestionID: pending.ID, Target: "C1"}, {Kind: "post", QuestionID: pending.ID, Target: "C2"}}
	require.NoError(t, m.DB.Enqueue(ctx, 3, ds))
	require.NoError(t, m.DB.Complete(ctx, ds[0], &hitl.Delivered{QuestionID: pending.ID, Target: "C1", Channel: "C1", TS: "1.2", PostedAt: time.Unix(1, 0).UTC()}))
	mails := []hitl.Mail{{QuestionID: pending.ID, User: "U0ALICE", Nudge: hitl.EventQuestionReminded, Event: 6, NextAt: time.Unix(60, 0).UTC()}}
	require.NoError(t, m.DB.EnqueueMail(ctx, 7, mails))
	hook := &hitl.Event{Type: hitl.EventQuestionAnswered, QuestionID: pending.ID, RunID: "run-mig", At: time.Unix(90, 0).UTC(),
		Webhooks: []hitl.WebhookDelivery{{ID: "msg_mig", Endpoint: "ci", Type: hitl.WebhookQuestionAnswered, RunID: "run-mig",
			Body: []byte(`{"type":"question.answered"}`), CreatedAt: time.Unix(90, 0).UTC(), NextAt: time.Unix(90, 0).UTC()},
			{ID: "msg_mig", URL: "https://agent.example/resume", Asker: "api:ci", Type: hitl.WebhookQuestionAnswered, RunID: "run-mig",
				Body: []byte(`{"type":"question.answered"}`), CreatedAt: time.Unix(90, 0).UTC(), NextAt: time.Unix(90, 0).UTC()}}}
	require.NoError(t, m.DB.AppendEvent(ctx, hook))
	// The audit trail, its oldest records pruned behind a signed checkpoint.
	pruned, err := m.Service.Audit.PruneAudit(ctx, time.Now().Add(time.Hour), 3)
	require.NoError(t, err)
	require.Equal(t, 3, pruned)
	wantHead, wantCP, err := m.DB.AuditHead(ctx)
	require.NoError(t, err)
	require.NotNil(t, wantCP)
	wantAudit, err := m.DB.AuditRecords(ctx, hitl.AuditFilter{Limit: 1000})
	require.NoError(t, err)
	wantPending, err := m.DB.Questions(ctx, hitl.QuestionFilter{Status: hitl.StatusPending})
	require.NoError(t, err)
	wantEvents, err := m.DB.Events(ctx, 0, 0)
	require.NoError(t, err)
	wantRun, err := m.DB.Run(ctx, "loop-mig")
	require.NoError(t, err)

	t.Run("a running service's file is refused", func(t *testing.T) {
		r := localCLI(nil, "migrate", "--from", path, "--to", pgtest.DB(t))
		assert.Equal(t, exitFailure, r.code)
		assert.Contains(t, r.stderr, "stop the service first")
	})
	require.NoError(t, m.Close())

	url := pgtest.DB(t)
	r := localCLI(nil, "migrate", "--from", path, "--to", url)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "5 questions")
	assert.Contains(t, r.stdout, fmt.Sprintf("1 learned rules, 1 queued deliveries, 1 delivery records, 1 queued mails, 2 webhook deliveries, %d audit records (counts checked)", len(wantAudit)))

	dst, err := postgres.Open(ctx, url)
	require.NoError(t, err)
	defer dst.Close()
	got, err := dst.Questions(ctx, hitl.QuestionFilter{Status: hitl.StatusPending})
	require.NoError(t, err)
	assert.Equal(t, wantPending.Questions, got.Questions, "the pending page reads the same")
	queue, err := dst.Questions(ctx, hitl.QuestionFilter{Queue: []string{"U0ALICE"}})
	require.NoError(t, err)
	assert.Len(t, queue.Questions, 2, "the assignee index came along")
	evs, err := dst.Events(ctx, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, wantEvents, evs, "the event log, numbered as it was")
	last, err := dst.LastSeq(ctx)
	require.NoError(t, err)
	assert.Equal(t, wantEvents[len(wantEvents)-1].Seq, last)
	run, err := dst.Run(ctx, "loop-mig")
	require.NoError(t, err)
	assert.Equal(t, wantRun, run, "the paused loop as it was")
	n, err := dst.CountQuestions(ctx, hitl.StatusAnswered)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	rule, err := dst.LearnedRule(ctx, hitl.LearnedRuleKey{Agent: "api:ci", OpType: hitl.OpShell, Resource: "make test"})
	require.NoError(t, err)
	require.NotNil(t, rule)
	next, err := dst.NextDelivery(ctx, "C2")
	require.NoError(t, err)
	assert.Equal(t, ds[1], next)
	cursor, err := dst.OutboxCursor(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), cursor)
	mailCursor, err := dst.MailCursor(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(7), mailCursor, "no event is mailed again")
	due, err := dst.ClaimMail(ctx, time.Unix(60, 0), time.Unix(120, 0).UTC(), 0)
	require.NoError(t, err)
	mails[0].NextAt, mails[0].Claim = time.Unix(120, 0).UTC(), 1 // this claim, the first
	assert.Equal(t, mails, due, "the queued mail, due as it was")
	// The callback's asker is copied too: a claim leaves out an asker at
	// its cap by the column the loader wrote.
	hooks, err := dst.ClaimWebhooks(ctx, time.Unix(90, 0), time.Unix(150, 0).UTC(), hitl.WebhookClaim{PerAsker: 1, Askers: map[string]int{"api:ci": 1}})
	require.NoError(t, err)
	require.Len(t, hooks, 1, "the endpoint's queued delivery, due as it was")
	assert.Equal(t, "msg_mig", hooks[0].ID)
	assert.Equal(t, "ci", hooks[0].Endpoint)
	assert.Equal(t, hook.Seq, hooks[0].EventSeq)
	hooks, err = dst.ClaimWebhooks(ctx, time.Unix(90, 0), time.Unix(150, 0).UTC(), hitl.WebhookClaim{})
	require.NoError(t, err)
	require.Len(t, hooks, 1, "the callback, its asker's cap not reached")
	assert.Equal(t, "callback:https://agent.example", hooks[0].Target())
	assert.Equal(t, "api:ci", hooks[0].Asker)
	head, cp, err := dst.AuditHead(ctx)
	require.NoError(t, err)
	assert.Equal(t, wantHead, head, "the audit chain's head")
	assert.Equal(t, wantCP, cp, "the signed checkpoint of its pruned records")
	audit, err := dst.AuditRecords(ctx, hitl.AuditFilter{Limit: 1000})
	require.NoError(t, err)
	assert.Equal(t, wantAudit, audit, "the audit records, chained as they were")
	sealKey, err := os.ReadFile(key)
	require.NoError(t, err)
	k, err := hex.DecodeString(strings.TrimSpace(string(sealKey)))
	require.NoError(t, err)
	verdict, err := service.VerifyTrail(ctx, dst, service.AuditKeyOf(k))
	require.NoError(t, err)
	assert.Nil(t, verdict.Break, "the copied chain verifies")
	assert.Equal(t, len(wantAudit), verdict.Records)
	rec, err := dst.DeliveredAt(ctx, "C1", "1.2")
	require.NoError(t, err)
	assert.Equal(t, pending.ID, rec.QuestionID)

	t.Run("a target that holds anything is refused, unchanged", func(t *testing.T) {
		before, err := dst.Counts(ctx)
		require.NoError(t, err)
		r := localCLI(nil, "migrate", "--from", path, "--to", url)
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "not empty")
		after, err := dst.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, before, after)
		r = localCLI(nil, "migrate", "--from", path, "--to", url, "--force")
		require.Equal(t, exitOK, r.code, r.stderr)
		after, err = dst.Counts(ctx)
		require.NoError(t, err)
		assert.Equal(t, before, after, "--force replaces it with the same copy")
	})
	t.Run("bad arguments", func(t *testing.T) {
		for _, args := range [][]string{{"migrate"}, {"migrate", "--from", path}, {"migrate", "--from", path, "--to", "/tmp/x.db"}, {"migrate", "--from", url, "--to", url}} {
			r := localCLI(nil, args...)
			assert.Equal(t, exitUsage, r.code, strings.Join(args, " "))
		}
	})
	t.Run("compact is for bbolt files", func(t *testing.T) {
		r := localCLI(nil, "compact", "--db", url)
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "hitl compact is for a bbolt file")
	})
	t.Run("serve names the database without its password", func(t *testing.T) {
		assert.Equal(t, "postgres://hitl:xxxxx@db:5432/hitl", databaseName("postgres://hitl:s3cret@db:5432/hitl"))
		assert.Equal(t, "./hitl.db", databaseName("./hitl.db"))
	})
	t.Run("the copy serves", func(t *testing.T) {
		r2 := startReplica(t, url, key)
		res := cli(admin, r2, "", "resume", "loop-mig")
		require.Equal(t, 0, res.code, res.stderr)
		ans := cli(admin, r2, "", "answer", pending.ID, "later")
		require.Equal(t, 0, ans.code, ans.stderr)
		v := cli(admin, r2, "", "audit", "verify")
		require.Equal(t, 0, v.code, "the chain goes on after the copy and verifies: %s %s", v.stdout, v.stderr)
		after, _, err := dst.AuditHead(ctx)
		require.NoError(t, err)
		assert.Greater(t, after.Seq, wantHead.Seq, "new records chain after the copied head")
	})
}
