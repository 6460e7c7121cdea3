package hitl

import "slices"

// Listed is whose lists a pending question appears in: its assignees and
// the people (or groups) escalation added, each once, assignees first.
// Every list of "what waits on me" reads it — the store indexes each id
// as an assignee list (QuestionFilter.Assignee, a Queue), so App Home,
// /hitl pending and the web inbox show an escalated question to the
// people it was escalated to, as they may answer it. A user group is
// listed by its id, as a group assignee is: its members find it through
// their groups.
//
// Escalation adds people; it takes the question from nobody: a question
// without assignees stays in the unassigned list (whoever answers may
// still answer it) and is in the escalated people's lists too.
func (q *Question) Listed() []string {
	if len(q.EscalatedTo) == 0 {
		return slices.Clone(q.Assignees)
	}
	out := slices.Clone(q.Assignees)
	for _, id := range q.EscalatedTo {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Unassigned reports whether a pending q is in the unassigned list:
// nobody was assigned to it. Escalation does not change that (see
// Listed): it adds people, and whoever answers may still answer it.
func (q *Question) Unassigned() bool { return len(q.Assignees) == 0 }
