package observe

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// Stats is the key metrics over a window (docs/operations.md#metrics-stats-and-alerts; hitl stats, GET
// /api/stats). Asked counts the questions asked in the window; the
// outcomes and times count the questions settled in it, whenever they
// were asked.
type Stats struct {
	// Since is the start of the window (RFC 3339): from rollups, the
	// start of the minute the asked start falls in.
	Since     time.Time `json:"since"`
	Run       string    `json:"run,omitempty"`
	Asked     int       `json:"asked"`
	Answered  int       `json:"answered"`
	TimedOut  int       `json:"timedOut"`
	Cancelled int       `json:"cancelled"`
	// Times from asking to the answer, over the questions answered in
	// the window (0 when none was).
	AvgTimeToAnswerSeconds float64 `json:"avgTimeToAnswerSeconds"`
	P50TimeToAnswerSeconds float64 `json:"p50TimeToAnswerSeconds"`
	P90TimeToAnswerSeconds float64 `json:"p90TimeToAnswerSeconds"`
	// TimeoutRateByType is, per question type, the share of the
	// questions settled in the window that timed out (0..1).
	TimeoutRateByType map[hitl.QuestionType]float64 `json:"timeoutRateByType"`
	// QuestionsPerRun is Asked over the runs those questions belong to.
	QuestionsPerRun float64 `json:"questionsPerRun"`
	// ResponseRate is the share of the questions people could answer
	// (answered or timed out; a cancelled one was withdrawn) that they
	// answered (0..1).
	ResponseRate  float64 `json:"responseRate"`
	RemindersSent int     `json:"remindersSent"`
	Escalations   int     `json:"escalations"`
	// Alerts are the alerts active now.
	Alerts []hitl.Alert `json:"alerts"`
}

// StatsQuery selects the window of Stats: the last Since (default
// DefaultStatsSince), of one run when Run is set.
type StatsQuery struct {
	Since time.Duration
	Run   string
}

// DefaultStatsSince is the window of stats when none is asked for.
const DefaultStatsSince = 24 * time.Hour

// ParseSince reads a stats window as people write it: a Go duration
// ("24h", "90m") or a number of days ("7d"); "" is the default.
func ParseSince(s string) (time.Duration, error) {
	if s == "" {
		return DefaultStatsSince, nil
	}
	bad := fault.Errorf(fault.EINVALID, "since %q is not a duration: use one like 24h, 90m or 7d", s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > 3650 {
			return 0, bad
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, bad
	}
	return d, nil
}

// StatsService serves stats. service.Observation implements it; client.Client
// implements it over HTTP.
//
// Errors: EINVALID for a bad window or run id, EFORBIDDEN when the
// principal may not read stats.
type StatsService interface {
	Stats(ctx context.Context, q StatsQuery) (*Stats, error)
}
