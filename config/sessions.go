package config

import (
	"time"

	"github.com/hitlbot/hitl/steer"
)

// Sessions configures coding-agent sessions (Claude Code, Codex) as runs:
// a session that sends no hook call for IdleAfter is shown idle, and one
// silent for EndAfter is ended (ABORT SESSION_IDLE; it comes back when the
// agent resumes the session). 0 turns either off.
type Sessions struct {
	IdleAfter Duration `yaml:"idle_after"`
	EndAfter  Duration `yaml:"end_after"`
}

// Defaults of sessions.idle_after and sessions.end_after.
const (
	DefaultSessionIdleAfter = 10 * time.Minute
	DefaultSessionEndAfter  = 4 * time.Hour
)

func defaultSessions() Sessions {
	return Sessions{IdleAfter: Duration(DefaultSessionIdleAfter), EndAfter: Duration(DefaultSessionEndAfter)}
}

// Times are the sessions' times as the service takes them.
func (s Sessions) Times() steer.SessionTimes {
	return steer.SessionTimes{IdleAfter: time.Duration(s.IdleAfter), EndAfter: time.Duration(s.EndAfter)}
}

// validate checks the two times: not negative, and a session is shown
// idle before it is ended.
func (s Sessions) validate() error {
	switch {
	case s.IdleAfter < 0:
		return bad("sessions.idle_after", time.Duration(s.IdleAfter).String(), "must be 0 (never idle) or a positive duration")
	case s.EndAfter < 0:
		return bad("sessions.end_after", time.Duration(s.EndAfter).String(), "must be 0 (never ended) or a positive duration")
	case s.EndAfter > 0 && s.IdleAfter > 0 && s.EndAfter <= s.IdleAfter:
		return bad("sessions.end_after", time.Duration(s.EndAfter).String(), "must be longer than sessions.idle_after ("+time.Duration(s.IdleAfter).String()+")")
	}
	return nil
}
