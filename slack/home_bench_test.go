package slack

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/internal/storetest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/store"
	"github.com/stretchr/testify/require"
)

// benchHomeBot returns a bot over the bbolt store holding n questions: the
// first 60 fill U0USER000's page at every size (40 assigned to them, 20
// answered by them), so both sizes render the same full page; the rest are
// a quarter open to anyone, a quarter assigned to one of 50 users, a
// quarter to one of 5 groups, a quarter answered by one of the 50 users.
// U0USER000 is in group S0GROUP0.
func benchHomeBot(b *testing.B, n int) *Bot {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "hitl.db"))
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	svc := service.NewService(db, service.ServiceConfig{Notifier: notify.New()})
	asker := auth.WithPrincipal(context.Background(), agentP)
	storetest.Parallel(b, n, func(i int) error {
		nq := hitl.NewQuestion{Question: fmt.Sprintf("Deploy build %d?", i), ResponseType: hitl.BooleanResponse}
		mine := i < 60
		switch {
		case mine:
			nq.Assignees = []string{"U0USER000"}
		case i%4 == 1:
			nq.Assignees = []string{fmt.Sprintf("U0USER%03d", i%50)}
		case i%4 == 2:
			nq.Assignees = []string{fmt.Sprintf("S0GROUP%d", i%5)}
		}
		q, _, err := svc.Questions.Create(asker, fmt.Sprintf("run-%d", i%100), nq)
		if err == nil && ((mine && i >= 40) || (!mine && i%4 == 3)) {
			user := fmt.Sprintf("U0USER%03d", i%50)
			if mine {
				user = "U0USER000"
			}
			who := access.Access{}.SlackPrincipal(user, nil)
			_, err = svc.Questions.Answer(auth.WithPrincipal(context.Background(), who), q.ID, hitl.Response{Value: true})
		}
		return err
	})
	api := &fakeAPI{GetUserGroupMembers: func(_ context.Context, group string) ([]string, error) {
		if group == "S0GROUP0" {
			return []string{"U0USER000"}, nil
		}
		return nil, nil
	}}
	bot := newBot(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, api, serviceOf(svc), nil)
	for g := range 5 {
		bot.groups.note(&hitl.Question{Assignees: []string{fmt.Sprintf("S0GROUP%d", g)}})
	}
	return bot
}

// BenchmarkHomeBuild measures building one person's App Home (their queue
// and recent answers read from the store's indexes, rendered to Block Kit)
// with 100 and with 100,000 questions stored, in the same run, and
// reports the ratio (large ÷ small). It leaves out the views.publish call
// and the group lookups (cached), and the coalescing of refreshes.
func BenchmarkHomeBuild(b *testing.B) {
	n := 100_000
	if testing.Short() {
		n = 2_000
	}
	small, large := benchHomeBot(b, 100), benchHomeBot(b, n)
	ctx := auth.WithPrincipal(context.Background(), auth.ObserverPrincipal("slack-bot"))
	var smallT, largeT time.Duration
	runs := 0
	for b.Loop() {
		start := time.Now()
		if _, err := small.homeView(ctx, "U0USER000"); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := large.homeView(ctx, "U0USER000"); err != nil {
			b.Fatal(err)
		}
		smallT += mid.Sub(start)
		largeT += time.Since(mid)
		runs++
	}
	b.ReportMetric(float64(smallT.Microseconds())/float64(runs), "µs/home@100")
	b.ReportMetric(float64(largeT.Microseconds())/float64(runs), fmt.Sprintf("µs/home@%d", n))
	b.ReportMetric(float64(largeT)/float64(smallT), "ratio")
}
