package hook

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
)

// userQuestion is one question of Claude Code's AskUserQuestion tool.
type userQuestion struct {
	Question string `json:"question"`
	Header   string `json:"header"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
	MultiSelect bool `json:"multiSelect"`
}

// AskedQuestions are the hitl questions AskUserQuestions asked.
type AskedQuestions []string

// AskUserQuestions asks the questions of an AskUserQuestion call as hitl
// questions of run, one each (multiSelect: several options may be
// chosen), and waits for every answer. It returns the tool input with
// `answers` added: each question's text mapped to the chosen label, or
// the chosen labels joined by ", " (Claude Code's contract for
// updatedInput). key, when set, makes the questions idempotent (a
// retried call finds them). When ctx ends first it returns the ids asked
// so far, for the caller to leave pending or release. timeout is how long
// each question stays open (0: the type's default): the hook's wait.
func AskUserQuestions(ctx context.Context, c *client.Client, run, key string, input map[string]any, timeout time.Duration, t client.Progress) (map[string]any, AskedQuestions, error) {
	var in struct {
		Questions []userQuestion `json:"questions"`
	}
	b, _ := json.Marshal(input)
	if err := json.Unmarshal(b, &in); err != nil || len(in.Questions) == 0 {
		return nil, nil, fault.Errorf(fault.EINVALID, "AskUserQuestion input has no questions")
	}
	var asked AskedQuestions
	for i, uq := range in.Questions {
		n := hitl.NewQuestion{Question: uq.Question, MultiSelect: uq.MultiSelect,
			Context: &hitl.QuestionContext{Agent: "Claude Code", CurrentStep: uq.Header}}
		for _, o := range uq.Options {
			n.Options = append(n.Options, hitl.Option{Label: o.Label, Value: o.Label, Description: o.Description})
		}
		if key != "" {
			n.IdempotencyKey = fmt.Sprintf("%s:%d", key, i)
		}
		if timeout > 0 {
			m := timeout.Minutes()
			n.TimeoutMinutes = &m
		}
		actx, cancel := client.Asking(ctx)
		q, _, err := c.Create(actx, run, n)
		cancel()
		if err != nil {
			return nil, asked, err
		}
		asked = append(asked, q.ID)
	}
	answers := map[string]any{}
	for i, id := range asked {
		q, err := c.Await(ctx, id, t)
		if err != nil {
			return nil, asked, err
		}
		switch q.Outcome() {
		case hitl.OutcomeAnswered, hitl.OutcomeDefaulted:
		case hitl.OutcomeTimedOut:
			return nil, asked, fault.Errorf(fault.ETIMEDOUT, "nobody answered %q in time", q.Question)
		default:
			return nil, asked, fault.Errorf(fault.ECANCELLED, "question %s was cancelled: %s", id, cmp.Or(q.CancelReason, "no reason given"))
		}
		answers[in.Questions[i].Question] = q.Response.String()
	}
	out := maps.Clone(input)
	out["answers"] = answers
	return out, asked, nil
}
