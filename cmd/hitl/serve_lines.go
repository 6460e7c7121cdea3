package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/eventstream"
)

// questionLines writes one line per question asked and per question
// settled (answered, timed out, cancelled) to w until ctx ends: the
// terminal's view of what waits on a person when hitl serve runs without
// Slack. It follows the event stream (eventstream over the event
// log, woken by each commit) from the end of the log, reads nothing else
// and writes nothing to the store.
func questionLines(ctx context.Context, log hitl.EventLog, w io.Writer) error {
	ctx = auth.WithPrincipal(ctx, auth.ObserverPrincipal("serve"))
	es, err := eventstream.New(ctx, log, nil, nil).Open(ctx, eventstream.Request{Principal: auth.ObserverPrincipal("serve")})
	if err != nil {
		return err
	}
	defer es.Close()
	err = es.Serve(ctx, lineSink{w})
	if errors.Is(err, eventstream.ErrBehind) {
		return fmt.Errorf("the event stream ended")
	}
	return err
}

// lineSink writes the question lines of the frames it gets.
type lineSink struct{ w io.Writer }

func (s lineSink) Send(frames []eventstream.Frame) error {
	for _, f := range frames {
		printQuestionLine(s.w, f.Event)
	}
	return nil
}

func (lineSink) Beat() error { return nil }

// printQuestionLine writes ev's line, if it is a question's arrival or
// its end.
func printQuestionLine(w io.Writer, ev *hitl.Event) {
	if line := questionLine(ev); line != "" {
		fmt.Fprintln(w, line)
	}
}

// questionLine is the line for ev (empty for events it does not show):
// who asks what, its id and how to answer it; who answered what; a
// timeout and what it left; a cancellation and why. Text from agents and
// people is made visible.
func questionLine(ev *hitl.Event) string {
	where := visible(ev.QuestionID) + " (run " + visible(ev.RunID) + ")"
	switch ev.Type {
	case hitl.EventQuestionAsked, hitl.EventQuestionReopened:
		q := ev.Question
		if q == nil {
			return ""
		}
		how := valueHint(q)
		if q.ResponseType == hitl.ChoiceResponse && !q.Sensitive {
			how += ", one of " + answerHint(q)
		}
		verb := "asks"
		if ev.Type == hitl.EventQuestionReopened {
			verb = "asks again"
		}
		return fmt.Sprintf("%s %s %s: %s — answer with: %s", visible(auth.PersonName(q.Asker)), verb, where, cell(q.Question, 200), how)
	case hitl.EventQuestionAnswered:
		line := "Answered " + where
		if ev.Actor != "" {
			line += " by " + visible(auth.PersonName(ev.Actor))
		}
		if r := ev.Response; r != nil {
			line += ": " + cell(responseText(r), 100)
		}
		return line
	case hitl.EventQuestionTimeout:
		if r := ev.Response; r != nil {
			return "Timed out " + where + ": nobody answered; the default " + cell(responseText(r), 100) + " was used"
		}
		return "Timed out " + where + ": nobody answered"
	case hitl.EventQuestionCancelled:
		line := "Cancelled " + where
		if ev.Actor != "" && ev.Actor != auth.ActorSystem {
			line += " by " + visible(auth.PersonName(ev.Actor))
		}
		if ev.Reason != "" {
			line += ": " + cell(ev.Reason, 100)
		}
		return line
	}
	return ""
}

// responseText is an answer as a line shows it: its value, and the
// message or reason that came with it.
func responseText(r *hitl.Response) string {
	s := r.String()
	if t := strings.TrimSpace(r.Text); t != "" {
		s += " (" + t + ")"
	}
	return s
}
