package blocks

import (
	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/steer"
	"github.com/slack-go/slack"
)

// A coding-agent session's live message is a run's, with what a person
// steering it needs: the session's task and directory, and whether the
// steering reached the agent yet (a pause it holds at, or is still
// queued for its next hook call; a redirect still queued).

// sessionFields are the session's task and directory.
func sessionFields(s *steer.Session) []*slack.TextBlockObject {
	var fs []*slack.TextBlockObject
	for _, f := range []struct{ name, value string }{{"Task", s.Title}, {"Directory", s.CWD}} {
		if v := oneLine(f.value); v != "" {
			e, _ := escapeCut(v, 200, ellipsis)
			fs = append(fs, mrkdwn(Truncate("*"+f.name+"*\n"+e, MaxSectionField, ellipsis)))
		}
	}
	return fs
}

// sessionSteering says where the steering of an active session stands.
func sessionSteering(r *hitl.Run) []slack.Block {
	c := r.Control
	s := c.Session
	if s == nil || !c.Status.Active() {
		return nil
	}
	agent, _ := escapeCut(oneLine(s.Agent), 50, ellipsis)
	var bs []slack.Block
	if c.Status == steer.RunPaused {
		line := "⏸ Paused by " + who(c.PausedBy) + " — queued: " + agent + " holds at its next hook call"
		if s.Held != "" {
			line = "⏸ Paused by " + who(c.PausedBy) + " — " + agent + " is held at " + string(s.Held)
		}
		bs = append(bs, contextBlock(mrkdwn(line)))
	}
	if c.Instruction != "" {
		text, _ := escapeCut(oneLine(c.Instruction), 500, ellipsis)
		bs = append(bs, contextBlock(mrkdwn("↪️ Instruction queued for "+agent+"'s next step: "+text)))
	}
	return bs
}

// who names a principal as the audit log does (slack:U…, api:NAME):
// plain text, never a mention (the live message must not ping anyone).
func who(id string) string {
	if id == "" {
		return "someone"
	}
	e, _ := escapeCut(oneLine(id), 100, ellipsis)
	return e
}
