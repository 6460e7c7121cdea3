package blocks

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

// t0 is the fixed clock of every test.
var t0 = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

var opts = MessageOptions{Now: t0.Add(time.Hour), MentionAssignees: true}

func at(d time.Duration) *time.Time {
	t := t0.Add(d)
	return &t
}

// question returns a plain pending question of the given types.
func question(typ hitl.QuestionType, rt hitl.ResponseType) *hitl.Question {
	q := &hitl.Question{
		ID:           "q_0123456789abcdef",
		RunID:        "loop-1703123456-12345",
		Type:         typ,
		Question:     "Which database should I migrate first?",
		ResponseType: rt,
		Context:      &hitl.QuestionContext{Agent: "claude-code", IssueID: "ENG-42", CurrentStep: "migrate schemas"},
		Status:       hitl.StatusPending,
		TimeoutAt:    at(30 * time.Minute),
		CreatedAt:    t0,
		Assignees:    []string{"U024BE7LH", "S0614TZR7"},
		Channel:      "C024BE91L",
		Asker:        "ci-agent",
	}
	switch rt {
	case hitl.ApprovalResponse:
		q.Question = "Delete 3 duplicate signals in prod?"
		q.TimeoutAt = at(15 * time.Minute)
	case hitl.BooleanResponse:
		q.Question = "Should I include design mockups in the PRD?"
	case hitl.ChoiceResponse:
		q.Options = []hitl.Option{
			{ID: "1", Label: "Postgres", Value: "pg"},
			{ID: "2", Label: "MySQL", Value: "mysql"},
			{ID: "3", Label: "SQLite", Value: "sqlite"},
		}
	}
	return q
}

func manyOptions(n int) []hitl.Option {
	opts := make([]hitl.Option, n)
	for i := range opts {
		opts[i] = hitl.Option{ID: fmt.Sprint(i + 1), Label: fmt.Sprintf("Region %02d", i+1), Value: fmt.Sprintf("r%d", i+1)}
		if i%3 == 0 {
			opts[i].Description = fmt.Sprintf("Datacenter %d, <cheap> & close", i+1)
		}
	}
	return opts
}

func answered(q *hitl.Question, by string, r *hitl.Response) *hitl.Question {
	q.Status, q.Response, q.RespondedBy, q.RespondedAt = hitl.StatusAnswered, r, by, at(7*time.Minute)
	return q
}

func timedOut(q *hitl.Question) *hitl.Question {
	q.Status, q.Response, q.RespondedBy, q.RespondedAt = hitl.StatusTimeout, q.DefaultResponse, auth.ActorSystem, q.TimeoutAt
	return q
}

func cancelled(q *hitl.Question, by, reason string) *hitl.Question {
	q.Status, q.RespondedBy, q.RespondedAt, q.CancelReason = hitl.StatusCancelled, by, at(3*time.Minute), reason
	return q
}

// Hostile inputs.
var (
	hostileBits = []string{"<!channel>", " & ", "<@U123>", " *bold* ", "`tick`", " ```fence``` ", "🎉👩‍👩‍👧", " مرحبا بالعالم ",
		"\u202etxet\u202c", "<!here|here>", "<https://evil.example|click>", "&amp;", "_it_", "~s~", "\n", "<!everyone>", "<#C123>", "\xff", "<!subteam^S999>", "é"}
	hostileLong  = hostile(20000)
	hostileAgent = hostile(1000)
)

// hostile repeats hostileBits to n runes.
func hostile(n int) string {
	var b strings.Builder
	runes := 0
	for i := 0; runes < n; i++ {
		for _, r := range hostileBits[i%len(hostileBits)] {
			if runes == n {
				break
			}
			if r == utf8.RuneError {
				b.WriteString("\xff") // keep the invalid byte
			} else {
				b.WriteRune(r)
			}
			runes++
		}
	}
	return b.String()
}

// hostileAssignees are 20 ids, one of which is not a Slack id.
func hostileAssignees() []string {
	ids := []string{"<!channel>"}
	for i := range 19 {
		p := "U"
		if i%4 == 0 {
			p = "S"
		}
		ids = append(ids, fmt.Sprintf("%s%010d", p, i))
	}
	return ids
}

// hostileQuestion makes q as hard to render as hitl lets an agent make it.
func hostileQuestion(q *hitl.Question) *hitl.Question {
	q.Question = hostileLong
	q.RunID = hostile(128)
	q.Asker = hostile(200)
	q.Context = &hitl.QuestionContext{Agent: hostileAgent, IssueID: hostile(4000), RunType: hostile(4000), ProjectName: hostile(4000),
		CurrentStep: hostile(4000), ErrorDetails: hostile(4000), SuggestedOptions: []string{hostile(500), hostile(500), hostile(500)}}
	q.Assignees = hostileAssignees()
	if q.ResponseType == hitl.ChoiceResponse {
		q.Options = make([]hitl.Option, 100)
		for i := range q.Options {
			q.Options[i] = hitl.Option{ID: fmt.Sprint(i), Label: fmt.Sprint(i) + hostile(497), Value: fmt.Sprint(i) + hostile(497), Description: hostile(500)}
		}
	}
	return q
}
