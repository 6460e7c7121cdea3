package web

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/runhandle"
	"github.com/hitlbot/hitl/steer"
)

// inboxFilter is what the inbox's filter form asks for.
type inboxFilter struct {
	Type   hitl.QuestionType
	Run    string
	Mine   bool
	Cursor string
}

type inboxView struct {
	Filter    inboxFilter
	Types     []hitl.QuestionType
	Questions []*hitl.Question
	// Next is the cursor of the next page.
	Next string
	// NoQueue says nothing can wait on this principal (a control-only
	// token; "assigned to me" for a token without a Slack user).
	NoQueue bool
	Now     time.Time
	// Handles are the questions' runs as people read them (runHandles).
	Handles map[string]string
}

// handleInbox serves GET /: the questions waiting on the person, soonest
// deadline first.
func (h *Handler) handleInbox(w http.ResponseWriter, r *http.Request, s *signIn) {
	q := r.URL.Query()
	f := inboxFilter{Type: hitl.QuestionType(q.Get("type")), Run: q.Get("run"), Mine: q.Get("mine") != "", Cursor: q.Get("cursor")}
	if f.Type != "" && !slices.Contains(hitl.QuestionTypes, f.Type) {
		h.fail(w, r, fault.Errorf(fault.EINVALID, "type %q is not a question type: use blocking, non_blocking, approval or error_recovery", f.Type))
		return
	}
	if f.Run != "" {
		if err := steer.ValidateRunID(f.Run); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	v, err := h.inbox(r, s.p, f)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	runs := make([]string, len(v.Questions))
	for i, q := range v.Questions {
		runs[i] = q.RunID
	}
	v.Handles = h.runHandles(r.Context(), runs...)
	h.render(w, r, http.StatusOK, "inbox", &page{Title: "Inbox", Waiting: len(v.Questions), Data: v})
}

// runHandles is each run as people read it: its handle (runhandle.Of,
// what hitl runs and hitl pending show; the link's title and the run's
// page have the full id), or its id when the handle cannot be read. It
// reads as the web's observer: a handle is a prefix of the run's own id.
func (h *Handler) runHandles(ctx context.Context, runs ...string) map[string]string {
	out := map[string]string{}
	octx := auth.WithPrincipal(ctx, auth.ObserverPrincipal("web"))
	for _, id := range runs {
		if _, ok := out[id]; ok {
			continue
		}
		hd, err := runhandle.Of(octx, h.svc.Runs, id)
		if err != nil || hd == "" {
			hd = id
		}
		out[id] = hd
	}
	return out
}

// inbox reads one page of p's queue, soonest deadline first across the
// whole queue (the store reads it from its indexes by deadline, from the
// cursor on): the root says which list holds it and which of its
// questions wait on p.
func (h *Handler) inbox(r *http.Request, p auth.Principal, f inboxFilter) (*inboxView, error) {
	v := &inboxView{Filter: f, Types: hitl.QuestionTypes, Now: h.cfg.Clock.Now(), Questions: []*hitl.Question{}}
	qf, empty := h.access.InboxFilter(p, f.Mine)
	if empty {
		v.NoQueue = true
		return v, nil
	}
	qf.Type, qf.RunID, qf.Limit, qf.ByDeadline, qf.Cursor = f.Type, f.Run, PageSize, true, f.Cursor
	pg, err := h.svc.Questions.QuestionPage(r.Context(), qf)
	if err != nil {
		return nil, err
	}
	for _, q := range pg.Questions {
		if h.access.InInbox(p, q, f.Mine) {
			v.Questions = append(v.Questions, q)
		}
	}
	v.Next = pg.NextCursor
	return v, nil
}
