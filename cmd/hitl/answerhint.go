package main

import (
	"strings"

	"github.com/hitlbot/hitl"
)

// answerHint is what the ANSWER WITH column shows: the accepted values,
// or for a secret how to give it without putting it on a command line.
func answerHint(q *hitl.Question) string {
	if q.Sensitive {
		return "secret: " + secretHint(q.ID)
	}
	switch q.ResponseType {
	case hitl.ChoiceResponse:
		labels := make([]string, len(q.Options))
		for i, o := range q.Options {
			labels[i] = o.Value
		}
		if q.MultiSelect {
			return cell("any of "+strings.Join(labels, ","), 30)
		}
		return cell(strings.Join(labels, "|"), 30)
	case hitl.BooleanResponse:
		return "yes|no"
	case hitl.ApprovalResponse:
		return "approve|deny"
	}
	return "text"
}

// secretHint says how to answer a sensitive question: on stdin, hidden.
func secretHint(id string) string {
	return hint("answer "+visible(id)) + ", then type it (hidden)"
}

// valueHint says how to answer question q from a terminal.
func valueHint(q *hitl.Question) string {
	if q.Sensitive {
		return secretHint(q.ID)
	}
	switch q.ResponseType {
	case hitl.ApprovalResponse:
		return hint("answer "+visible(q.ID)) + " approve (or deny, or --reply TEXT)"
	case hitl.BooleanResponse:
		return hint("answer "+visible(q.ID)) + " yes (or no)"
	}
	return hint("answer "+visible(q.ID)) + " VALUE"
}
