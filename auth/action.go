package auth

// Action is something a principal does that the rules decide.
type Action string

const (
	ActionAsk     Action = "ask"     // create a question
	ActionRead    Action = "read"    // see a question, wait for it, read its run
	ActionAnswer  Action = "answer"  // answer (decide) a question
	ActionCancel  Action = "cancel"  // cancel a pending question
	ActionReceive Action = "receive" // take a settled question's outcome
	ActionSteer   Action = "steer"   // pause, resume, cancel, escalate or redirect a run
	ActionAudit   Action = "audit"   // read refusals and other audit events
	// ActionReassign hands a pending question to other people (reassign.go).
	ActionReassign Action = "reassign"
	ActionStats    Action = "stats"  // read stats (counts over every question)
	ActionScrape   Action = "scrape" // scrape /metrics
	// ActionWebhooks: list webhook deliveries, replay one, send a test.
	ActionWebhooks Action = "webhooks"
)

// ActionThreshold sets a run's own interaction threshold.
const ActionThreshold Action = "threshold"

// ActionReport is what an agent does in its own run: ask in it, publish
// loop:current (STATE, ABORT, DONE) for it, checkpoint it.
const ActionReport Action = "report"

// ActionSignIn is signing in to the web inbox (audited when refused).
const ActionSignIn Action = "sign_in"
