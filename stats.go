package hitl

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
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
	TimeoutRateByType map[QuestionType]float64 `json:"timeoutRateByType"`
	// QuestionsPerRun is Asked over the runs those questions belong to.
	QuestionsPerRun float64 `json:"questionsPerRun"`
	// ResponseRate is the share of the questions people could answer
	// (answered or timed out; a cancelled one was withdrawn) that they
	// answered (0..1).
	ResponseRate  float64 `json:"responseRate"`
	RemindersSent int     `json:"remindersSent"`
	Escalations   int     `json:"escalations"`
	// Alerts are the alerts active now.
	Alerts []Alert `json:"alerts"`
}

// StatsQuery selects the window of Stats: the last Since (default
// DefaultStatsSince), of one run when Run is set.
type StatsQuery struct {
	Since time.Duration
	Run   string
}

// DefaultStatsSince is the window of stats when none is asked for.
const DefaultStatsSince = 24 * time.Hour

// CountsAsReminder and CountsAsEscalation say whether an event of type t
// is a reminder sent or an escalation, for readers of the log that count
// them (metrics).
func CountsAsReminder(t EventType) bool   { return t == EventQuestionReminded }
func CountsAsEscalation(t EventType) bool { return t == EventQuestionEscalated }

// StatsService serves stats. *Service implements it; agent.Client
// implements it over HTTP.
//
// Errors: EINVALID for a bad window or run id, EFORBIDDEN when the
// principal may not read stats.
type StatsService interface {
	Stats(ctx context.Context, q StatsQuery) (*Stats, error)
}

var _ StatsService = (*Service)(nil)

// Stats implements StatsService. With a StatsWindow (hitl serve:
// observe.Windows), the stats of every run are read from the rollups, the
// window starting at its minute (docs/operations.md#how-exact-stats-are).
// Otherwise, and for one run, it reads the questions asked in the
// window by the creation-time index and those settled in it by the
// settle-time index (of one run: that run's questions by the run index),
// and the window's events from the first one in it (found by a binary
// search of the log): its cost grows with what happened in the window,
// not with the history stored.
func (s *Service) Stats(ctx context.Context, sq StatsQuery) (*Stats, error) {
	p := PrincipalFrom(ctx)
	if err := s.access.Authorize(p, ActionStats, nil); err != nil {
		return nil, s.refused(ctx, p, ActionStats, &Question{RunID: sq.Run}, err)
	}
	if sq.Since == 0 {
		sq.Since = DefaultStatsSince
	}
	if sq.Since < 0 {
		return nil, Errorf(EINVALID, "since must be a positive duration, like 24h or 90m")
	}
	if sq.Run != "" {
		if err := ValidateRunID(sq.Run); err != nil {
			return nil, err
		}
	}
	since := s.clock.Now().Add(-sq.Since)
	if s.window != nil && sq.Run == "" {
		st, err := s.window.WindowStats(ctx, since)
		if err != nil {
			return nil, err
		}
		return s.withAlerts(st, st.Since, sq.Run), nil
	}
	var t statsTally
	t.runs = map[string]bool{}
	var err error
	if sq.Run != "" {
		err = s.tallyRun(ctx, sq.Run, since, &t)
	} else {
		err = s.tallyAll(ctx, since, &t)
	}
	if err != nil {
		return nil, err
	}
	if err := s.tallyEvents(ctx, sq.Run, since, &t); err != nil {
		return nil, err
	}
	return s.withAlerts(t.stats(), since, sq.Run), nil
}

// withAlerts sets st's window and the alerts active now.
func (s *Service) withAlerts(st *Stats, since time.Time, run string) *Stats {
	st.Since, st.Run = since, run
	st.Alerts = []Alert{}
	if a := s.alerts.Load(); a != nil {
		st.Alerts = a.Active()
	}
	return st
}

// statsTally accumulates a window's questions and events.
type statsTally struct {
	asked                         int
	runs                          map[string]bool
	answered, timedOut, cancelled int
	answerSeconds                 []float64
	settledByType                 map[QuestionType]Tally
	reminders, escalations        int
}

func (t *statsTally) ask(q *Question) {
	t.asked++
	t.runs[q.RunID] = true
}

func (t *statsTally) settle(q *Question) {
	if t.settledByType == nil {
		t.settledByType = map[QuestionType]Tally{}
	}
	by := t.settledByType[q.Type]
	by.Settled++
	switch q.Status {
	case StatusAnswered:
		t.answered++
		t.answerSeconds = append(t.answerSeconds, q.RespondedAt.Sub(q.CreatedAt).Seconds())
	case StatusTimeout:
		t.timedOut++
		by.TimedOut++
	case StatusCancelled:
		t.cancelled++
	}
	t.settledByType[q.Type] = by
}

func (t *statsTally) stats() *Stats {
	st := &Stats{Asked: t.asked, Answered: t.answered, TimedOut: t.timedOut, Cancelled: t.cancelled,
		RemindersSent: t.reminders, Escalations: t.escalations, TimeoutRateByType: map[QuestionType]float64{}}
	if n := len(t.answerSeconds); n > 0 {
		slices.Sort(t.answerSeconds)
		sum := 0.0
		for _, v := range t.answerSeconds {
			sum += v
		}
		st.AvgTimeToAnswerSeconds = round3(sum / float64(n))
		st.P50TimeToAnswerSeconds = round3(percentile(t.answerSeconds, 0.5))
		st.P90TimeToAnswerSeconds = round3(percentile(t.answerSeconds, 0.9))
	}
	for typ, by := range t.settledByType {
		st.TimeoutRateByType[typ] = round3(float64(by.TimedOut) / float64(by.Settled))
	}
	if len(t.runs) > 0 {
		st.QuestionsPerRun = round3(float64(t.asked) / float64(len(t.runs)))
	}
	if d := t.answered + t.timedOut; d > 0 {
		st.ResponseRate = round3(float64(t.answered) / float64(d))
	}
	return st
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// ParseSince reads a stats window as people write it: a Go duration
// ("24h", "90m") or a number of days ("7d"); "" is the default.
func ParseSince(s string) (time.Duration, error) {
	if s == "" {
		return DefaultStatsSince, nil
	}
	bad := Errorf(EINVALID, "since %q is not a duration: use one like 24h, 90m or 7d", s)
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
