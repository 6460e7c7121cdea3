package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/internal/broadcast"
)

// questionLines writes one line per question asked and per question
// settled (answered, timed out, cancelled) to w until ctx ends: the
// terminal's view of what waits on a person when hitl serve runs without
// Slack. It follows the event stream (a broadcaster over the event log,
// woken by each commit) from the end of the log, reads nothing else and
// writes nothing to the store.
func questionLines(ctx context.Context, log hitl.EventLog, w io.Writer) error {
	ctx = hitl.WithPrincipal(ctx, hitl.ObserverPrincipal("serve"))
	b := broadcast.New(ctx, log, nil, nil)
	sub, err := b.Subscribe(ctx, hitl.ObserverPrincipal("serve"))
	if err != nil {
		return err
	}
	defer b.Unsubscribe(sub)
	cur, err := broadcast.EndOfLog(ctx, log, sub.Start())
	if err != nil {
		return err
	}
	// catchUp reads the log itself up to to: what the broadcaster did not
	// read for this stream.
	catchUp := func(to uint64) error {
		for cur < to {
			evs, last, err := log.Events(ctx, cur, broadcast.ReadBatch)
			if err != nil || last == cur {
				return err
			}
			for _, ev := range evs {
				printQuestionLine(w, ev)
			}
			cur = last
		}
		return nil
	}
	if err := catchUp(sub.Start()); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sub.Gone():
			return fmt.Errorf("the event stream ended")
		case bt := <-sub.Batches():
			if bt.To <= cur {
				continue
			}
			if !bt.Read || bt.From > cur {
				if err := catchUp(bt.To); err != nil {
					return err
				}
				continue
			}
			for _, f := range bt.Frames {
				if f.Seq > cur {
					printQuestionLine(w, f.Event)
				}
			}
			cur = bt.To
		}
	}
}

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
		return fmt.Sprintf("%s %s %s: %s — answer with: %s", visible(hitl.PersonName(q.Asker)), verb, where, cell(q.Question, 200), how)
	case hitl.EventQuestionAnswered:
		line := "Answered " + where
		if ev.Actor != "" {
			line += " by " + visible(hitl.PersonName(ev.Actor))
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
		if ev.Actor != "" && ev.Actor != hitl.ActorSystem {
			line += " by " + visible(hitl.PersonName(ev.Actor))
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
