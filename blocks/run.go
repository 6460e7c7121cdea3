package blocks

import (
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/slack-go/slack"
)

// Run action ids: the buttons of a run's live message. Their block id is
// "run:<runId>" (RunBlockID) and their value the run id.
const (
	ActionRunPause    = ActionPrefix + "run_pause"
	ActionRunResume   = ActionPrefix + "run_resume"
	ActionRunCancel   = ActionPrefix + "run_cancel"
	ActionRunEscalate = ActionPrefix + "run_escalate" // opens EscalateModal
	ActionRunRedirect = ActionPrefix + "run_redirect" // opens RedirectModal
)

const runBlockPrefix = "run:"

// RunBlockID is the block id of a run's buttons: "run:<id>".
func RunBlockID(runID string) string { return runBlockPrefix + runID }

// RunActionIDs lists the run buttons' action ids.
func RunActionIDs() []string {
	return []string{ActionRunPause, ActionRunResume, ActionRunCancel, ActionRunEscalate, ActionRunRedirect}
}

// RunAction is a parsed click on a run button.
type RunAction struct {
	ActionID string
	RunID    string
}

// ParseRunAction parses a click on a run button: the run id comes from
// the block id and must agree with the button's value.
func ParseRunAction(actionID, blockID, value string) (RunAction, error) {
	id, ok := strings.CutPrefix(blockID, runBlockPrefix)
	if !ok || steer.ValidateRunID(id) != nil {
		return RunAction{}, fault.Errorf(fault.EINVALID, "block %s does not name a run", quote(blockID))
	}
	if value != "" && value != id {
		return RunAction{}, fault.Errorf(fault.EINVALID, "button %s is not for run %s", quote(value), quote(id))
	}
	for _, a := range RunActionIDs() {
		if a == actionID {
			return RunAction{ActionID: actionID, RunID: id}, nil
		}
	}
	return RunAction{}, fault.Errorf(fault.EINVALID, "unknown run action %s", quote(actionID))
}

// RunView is what a run's live message shows: the run record, and where
// the question it waits on was posted (a permalink; "" when unknown).
type RunView struct {
	Run         *hitl.Run
	WaitingLink string
	Now         time.Time
}

// RunMessage renders a run's live message: id, issue, mode, iteration,
// model, state, the question it waits on, and the buttons that apply
// (none once it ended).
func RunMessage(v RunView) Message {
	r := v.Run
	if r == nil {
		r = &hitl.Run{}
	}
	c := r.Control
	id := plain(oneLine(r.ID), MaxHeaderText-3, "run")
	bs := []slack.Block{slack.NewHeaderBlock(plainText(Truncate("🔁 "+id, MaxHeaderText, ellipsis)))}
	bs = append(bs, slack.NewSectionBlock(nil, runFields(r), nil))
	if s := runWaiting(r, v.WaitingLink); s != "" {
		bs = append(bs, section(s))
	}
	bs = append(bs, sessionSteering(r)...)
	if c.EscalationReason != "" {
		reason, _ := escapeCut(oneLine(c.EscalationReason), 500, ellipsis)
		bs = append(bs, contextBlock(mrkdwn("⬆️ Escalated: "+reason)))
	}
	if c.Status.Active() && steer.ValidateRunID(r.ID) == nil {
		bs = append(bs, runButtons(r))
	}
	updated := v.Now
	if c.LastStateAt != nil && c.LastStateAt.After(updated) {
		updated = *c.LastStateAt
	}
	var els []slack.MixedElement
	if !updated.IsZero() {
		els = append(els, mrkdwn("Updated "+date(updated)))
	}
	els = append(els, plainText("hitl status "+plain(r.ID, 200, "run")))
	bs = append(bs, contextBlock(els...))
	return Message{Text: runFallback(r), Blocks: bs}
}

// runFields is the run's facts as section fields (at most 10).
func runFields(r *hitl.Run) []*slack.TextBlockObject {
	c := r.Control
	field := func(name, value string) *slack.TextBlockObject {
		return mrkdwn(Truncate("*"+name+"*\n"+value, MaxSectionField, ellipsis))
	}
	fs := []*slack.TextBlockObject{field("State", RunStateText(c))}
	if it := c.Iteration(); it != "" {
		fs = append(fs, field("Iteration", it))
	}
	add := func(name, s string) {
		if s = oneLine(s); s != "" {
			v, _ := escapeCut(s, 200, ellipsis)
			fs = append(fs, field(name, v))
		}
	}
	add("Model", c.Model)
	add("Mode", c.Mode)
	add("Issue", c.IssueID)
	if c.Session != nil {
		fs = append(fs, sessionFields(c.Session)...)
	}
	return fs
}

// RunStateText says where a run is: "▶️ Running", "⏸ Paused", "✅ Done",
// "🛑 Aborted: USER_CANCELLED".
func RunStateText(c steer.RunControl) string {
	switch c.Status {
	case steer.RunRunning:
		if c.Session != nil && c.Session.Idle {
			return "💤 Idle"
		}
		return "▶️ Running"
	case steer.RunPaused:
		return "⏸ Paused"
	case steer.RunDone:
		return "✅ Done"
	case steer.RunCancelled, steer.RunAborted:
		s := "🛑 Aborted"
		if c.Reason != "" {
			reason, _ := escapeCut(oneLine(c.Reason), 300, ellipsis)
			s += ": " + reason
		}
		return s
	}
	return "❔ Not reported"
}

// runWaiting is the question the run waits on, linked to its message.
func runWaiting(r *hitl.Run, link string) string {
	w := r.WaitingOn
	if w == nil || !r.Control.Status.Active() {
		return ""
	}
	text, _ := escapeCut(oneLine(w.Question), 500, ellipsis)
	if text == "" {
		text = w.QuestionID
	}
	if link != "" && validLink(link) {
		text = "<" + link + "|" + strings.ReplaceAll(text, "|", "¦") + ">"
	}
	return "⏳ *Waiting on:* " + text
}

// validLink accepts an https URL with nothing that could break a link token.
func validLink(s string) bool {
	return strings.HasPrefix(s, "https://") && len(s) < 1000 && !strings.ContainsAny(s, "<>| \n")
}

// runButtons are Pause or Resume, Escalate, Redirect, Review N
// approvals… when two or more wait, and Cancel (with a confirmation
// dialog).
func runButtons(r *hitl.Run) slack.Block {
	var els []slack.BlockElement
	if r.Control.Status == steer.RunPaused {
		els = append(els, button(ActionRunResume, r.ID, "▶️ Resume", slack.StylePrimary))
	} else {
		els = append(els, button(ActionRunPause, r.ID, "⏸ Pause", ""))
	}
	els = append(els,
		button(ActionRunEscalate, r.ID, "⬆️ Escalate…", ""),
		button(ActionRunRedirect, r.ID, "↪️ Redirect…", ""))
	if r.PendingApproval >= 2 {
		els = append(els, ReviewButton(r.ID, r.PendingApproval)) // batch.go
	}
	cancel := button(ActionRunCancel, r.ID, "🛑 Cancel", slack.StyleDanger)
	cancel.Confirm = confirm("Cancel this run?",
		"The agent stops at its next checkpoint and its pending questions are cancelled. Run "+r.ID+".",
		"Cancel run", "Keep running", slack.StyleDanger)
	els = append(els, cancel)
	return slack.NewActionBlock(RunBlockID(r.ID), els...)
}

// Limits of a confirmation dialog.
const (
	MaxConfirmTitle  = 100
	MaxConfirmText   = 300
	MaxConfirmButton = 30
)

// confirm is a confirmation dialog, plain text, cut to Slack's limits.
func confirm(title, text, yes, no string, style slack.Style) *slack.ConfirmationBlockObject {
	c := slack.NewConfirmationBlockObject(
		plainText(plain(title, MaxConfirmTitle, "Are you sure?")),
		plainText(plain(text, MaxConfirmText, "Are you sure?")),
		plainText(plain(yes, MaxConfirmButton, "Yes")),
		plainText(plain(no, MaxConfirmButton, "No")))
	c.Style = style
	return c
}

func runFallback(r *hitl.Run) string {
	id, _ := escapeCut(oneLine(r.ID), 150, ellipsis)
	return "🔁 Run " + id + ": " + RunStateText(r.Control)
}

// RunLine is one line about a run, for /hitl runs and /hitl status: its
// handle first when it is shorter than the id (what to type), then the id.
func RunLine(r *hitl.Run, handle string) string {
	c := r.Control
	id, _ := escapeCut(oneLine(r.ID), 150, ellipsis)
	var parts []string
	if h := oneLine(handle); h != "" && h != r.ID && strings.HasPrefix(r.ID, h) {
		// What to type first, then the whole id to recognise the run by.
		parts = append(parts, "`"+strings.ReplaceAll(h, "`", "'")+"` ("+strings.ReplaceAll(id, "`", "'")+")")
	} else {
		parts = append(parts, "`"+strings.ReplaceAll(id, "`", "'")+"`")
	}
	parts = append(parts, RunStateText(c))
	if it := c.Iteration(); it != "" {
		parts = append(parts, "iteration "+it)
	}
	task := ""
	if c.Session != nil {
		task = c.Session.Title
	}
	for _, s := range []string{c.Model, c.Mode, c.IssueID, task} {
		if s = oneLine(s); s != "" {
			e, _ := escapeCut(s, 100, ellipsis)
			parts = append(parts, e)
		}
	}
	line := strings.Join(parts, " · ")
	if w := r.WaitingOn; w != nil && c.Status.Active() {
		q, _ := escapeCut(oneLine(w.Question), 150, ellipsis)
		line += "\n    ⏳ waiting on `" + w.QuestionID + "`: " + q
	}
	return line
}
