// Package memstore is an in-memory hitl.Store for tests of the lifecycle and
// the edges. It keeps the store's contract (atomic updates, idempotency keys,
// due questions in deadline order) but nothing survives the process.
package memstore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// Store is an in-memory hitl.Store.
type Store struct {
	mu        sync.Mutex
	questions map[string]*hitl.Question
	order     []string
	keys      map[string]string
	events    []*hitl.Event
	runs      map[string]*hitl.Run
	seq       uint64
	born      map[string]int // id → creation order: ties of time list in it
	control   map[hitl.ControlKey]hitl.ControlRecord
	policy    *hitl.PolicyState

	learned      map[string]hitl.LearnedRule    // id → rule
	learnedByKey map[hitl.LearnedRuleKey]string // key → id

	signIns   map[string]hitl.SignIn // id → session (signin.go)
	envelopes map[string]time.Time   // id → seen at (envelope.go)
	hooks     webhooks               // the webhook outbox (webhook.go)
	rollups   rollups                // the stats rollups (rollup.go)
	audit     audit                  // the audit trail (audit.go)
}

// Store implements each part of hitl.Store whole.
var (
	_ hitl.Store          = (*Store)(nil) // every part: what wiring takes
	_ hitl.QuestionStore  = (*Store)(nil)
	_ hitl.ReminderStore  = (*Store)(nil)
	_ hitl.RunStore       = (*Store)(nil)
	_ hitl.EventStore     = (*Store)(nil)
	_ hitl.PolicyStore    = (*Store)(nil)
	_ hitl.RetentionStore = (*Store)(nil)
	_ hitl.SignInStore    = (*Store)(nil)
	_ hitl.EnvelopeStore  = (*Store)(nil)
	_ hitl.WebhookOutbox  = (*Store)(nil)
)

// New returns an empty store.
func New() *Store {
	return &Store{questions: map[string]*hitl.Question{}, keys: map[string]string{}, runs: map[string]*hitl.Run{}, born: map[string]int{}, control: map[hitl.ControlKey]hitl.ControlRecord{}}
}

// CreateQuestion implements hitl.QuestionStore.
func (s *Store) CreateQuestion(_ context.Context, q *hitl.Question, ev *hitl.Event, admit func(*hitl.Run) error) (*hitl.Question, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := q.RunID + "\x00" + hitl.KeyOf(q.Asker, q.IdempotencyKey)
	if q.IdempotencyKey != "" {
		if id, ok := s.keys[key]; ok {
			return s.questions[id].Clone(), false, nil
		}
	}
	if _, ok := s.questions[q.ID]; ok {
		return nil, false, fault.Errorf(fault.ECONFLICT, "question id %s is taken", q.ID)
	}
	if admit != nil {
		var run *hitl.Run
		if r, ok := s.runs[q.RunID]; ok {
			c := *r
			run = &c
		}
		if err := admit(run); err != nil {
			return nil, false, err
		}
	}
	if q.IdempotencyKey != "" {
		s.keys[key] = q.ID
	}
	s.questions[q.ID] = q.Clone()
	s.order = append(s.order, q.ID)
	s.born[q.ID] = len(s.born)
	s.track(nil, q, ev)
	s.append(ev)
	return q.Clone(), true, nil
}

// UpdateQuestion implements hitl.QuestionStore.
func (s *Store) UpdateQuestion(_ context.Context, id string, fn func(*hitl.Question) (*hitl.Event, error)) (*hitl.Question, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.questions[id]
	if !ok {
		return nil, fault.Errorf(fault.ENOTFOUND, "question %s not found", id)
	}
	q := cur.Clone()
	ev, err := fn(q)
	if err != nil {
		return nil, err
	}
	s.questions[id] = q.Clone()
	s.track(cur, q, ev)
	if q.IdempotencyKey != "" && q.ReceivedAt != nil && s.keys[q.RunID+"\x00"+hitl.KeyOf(q.Asker, q.IdempotencyKey)] == id {
		delete(s.keys, q.RunID+"\x00"+hitl.KeyOf(q.Asker, q.IdempotencyKey)) // the outcome was taken: the key is free
	}
	s.append(ev)
	return q, nil
}

// QuestionByKey implements hitl.QuestionStore.
func (s *Store) QuestionByKey(_ context.Context, runID, key string) (*hitl.Question, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.keys[runID+"\x00"+key]; ok {
		return s.questions[id].Clone(), nil
	}
	return nil, fault.Errorf(fault.ENOTFOUND, "no question of run %s holds key %q", runID, key)
}

// SealedQuestions implements hitl.QuestionStore (by scanning: fine for tests).
func (s *Store) SealedQuestions(context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, id := range s.order {
		if q := s.questions[id]; q.Response != nil && q.Response.Sealed != nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// AppendEvent implements hitl.EventStore.
func (s *Store) AppendEvent(_ context.Context, ev *hitl.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.append(ev)
	return nil
}

func (s *Store) append(ev *hitl.Event) {
	if ev == nil {
		return
	}
	s.seq++
	ev.Seq = s.seq
	s.enqueueWebhooks(ev)
	s.rollupEvent(ev)
	if r := hitl.AuditOf(ev); r != nil {
		s.audit.append(r)
	}
	c := *ev
	s.events = append(s.events, &c)
}

// Question implements hitl.QuestionStore.
func (s *Store) Question(_ context.Context, id string) (*hitl.Question, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.questions[id]
	if !ok {
		return nil, fault.Errorf(fault.ENOTFOUND, "question %s not found", id)
	}
	return q.Clone(), nil
}

// Questions implements hitl.QuestionStore by sorting the matches the way the
// bbolt store's indexes order them (fine for tests).
func (s *Store) Questions(_ context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	type entry struct {
		key string
		q   *hitl.Question
	}
	var all []entry
	for _, q := range s.questions {
		if !f.Match(q) {
			continue
		}
		at := q.CreatedAt
		if f.RunID == "" && f.Assignee == "" && !f.Unassigned && f.RespondedBy != "" {
			at = *q.RespondedAt
		}
		key := fmt.Sprintf("%020d|%010d", at.UnixNano(), s.born[q.ID])
		if f.ByDeadline { // deadline ‖ id, never last, as the bbolt store's by_due_list
			due := uint64(math.MaxUint64)
			if q.TimeoutAt != nil {
				due = uint64(q.TimeoutAt.UnixNano()) ^ 1<<63
			}
			key = fmt.Sprintf("%020d|%s", due, q.ID)
		}
		all = append(all, entry{key, q})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].key < all[j].key })
	if f.Reverse {
		slices.Reverse(all)
	}
	page := hitl.QuestionPage{Questions: []*hitl.Question{}}
	lastKey := ""
	for _, e := range all {
		if f.Cursor != "" && ((!f.Reverse && e.key <= f.Cursor) || (f.Reverse && e.key >= f.Cursor)) {
			continue
		}
		if len(page.Questions) == f.PageSize() {
			page.NextCursor = lastKey
			break
		}
		page.Questions = append(page.Questions, e.q.Clone())
		lastKey = e.key
	}
	if len(f.Queue) > 0 && page.NextCursor != "" {
		page.More = true
		if !f.ByDeadline {
			page.NextCursor = "" // a queue by creation time is one page
		}
	}
	return page, nil
}

// DueQuestions implements hitl.QuestionStore (by scanning: fine for tests).
func (s *Store) DueQuestions(_ context.Context, now time.Time, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var due []*hitl.Question
	for _, q := range s.questions {
		if q.Pending() && q.TimeoutAt != nil && !q.TimeoutAt.After(now) {
			due = append(due, q)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].TimeoutAt.Before(*due[j].TimeoutAt) })
	ids := []string{}
	for _, q := range due {
		if limit > 0 && len(ids) == limit { // 0: no limit, like the bbolt store and Events
			break
		}
		ids = append(ids, q.ID)
	}
	return ids, nil
}

// Events implements hitl.EventStore.
func (s *Store) Events(_ context.Context, after uint64, limit int) ([]*hitl.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*hitl.Event
	for _, ev := range s.events {
		if ev.Seq > after {
			c := *ev
			out = append(out, &c)
			if limit > 0 && len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// RunEvents implements hitl.EventStore (by scanning: fine for tests).
func (s *Store) RunEvents(_ context.Context, runID string, after uint64, limit int) ([]*hitl.Event, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*hitl.Event
	for _, ev := range s.events {
		if ev.Seq <= after || ev.RunID != runID {
			continue
		}
		if limit > 0 && len(out) == limit {
			return out, out[len(out)-1].Seq, nil
		}
		c := *ev
		out = append(out, &c)
	}
	return out, max(after, s.seq), nil
}

// track keeps q's run current and stamps ev with the status after it.
func (s *Store) track(old, q *hitl.Question, ev *hitl.Event) {
	s.rollupQuestion(old, q)
	run := s.runs[q.RunID]
	if run == nil {
		run = &hitl.Run{}
		s.runs[q.RunID] = run
	}
	at := q.CreatedAt
	if ev != nil {
		at = ev.At
	}
	run.Track(old, q, at)
	run.Version++
	if run.WaitingOn == nil && run.PendingInput+run.PendingApproval > 0 {
		var next *hitl.Question
		for _, id := range s.order {
			c := s.questions[id]
			if c.RunID == run.ID && hitl.WaitsOn(c) && (next == nil || c.CreatedAt.Before(next.CreatedAt)) {
				next = c
			}
		}
		if next != nil {
			run.WaitingOn = &hitl.PendingQuestion{QuestionID: next.ID, Question: next.Question, Timestamp: next.CreatedAt}
		}
	}
	if ev != nil {
		ev.Status = run.Status()
	}
}

// Run implements hitl.RunStore.
func (s *Store) Run(_ context.Context, id string) (*hitl.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	run, ok := s.runs[id]
	if !ok {
		return nil, fault.Errorf(fault.ENOTFOUND, "no run is named %s", id)
	}
	c := *run
	return &c, nil
}

// Prune implements hitl.RetentionStore.
func (s *Store) Prune(_ context.Context, before time.Time, limit int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if limit <= 0 {
		limit = 256
	}
	var old []*hitl.Question
	for _, q := range s.questions {
		if !q.Pending() && q.RespondedAt != nil && q.RespondedAt.Before(before) {
			old = append(old, q)
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i].RespondedAt.Before(*old[j].RespondedAt) })
	if len(old) > limit {
		old = old[:limit]
	}
	for _, q := range old {
		delete(s.questions, q.ID)
		s.rollupQuestion(q, nil)
		s.order = slices.DeleteFunc(s.order, func(id string) bool { return id == q.ID })
		if k := q.RunID + "\x00" + hitl.KeyOf(q.Asker, q.IdempotencyKey); s.keys[k] == q.ID {
			delete(s.keys, k)
		}
		if run := s.runs[q.RunID]; run != nil {
			if run.Forget(q); !run.Held() {
				delete(s.runs, q.RunID)
			}
		}
	}
	n := 0
	for n < len(s.events) && n < limit && s.events[n].At.Before(before) {
		n++
	}
	s.events = s.events[n:]
	s.pruneRollups(before)
	for id, run := range s.runs {
		if run.Control.Status.Ended() && !run.Held() && run.UpdatedAt.Before(before) {
			delete(s.runs, id)
		}
	}
	var control []hitl.ControlKey
	for k, rec := range s.control {
		if rec.At.Before(before) {
			control = append(control, k)
		}
	}
	slices.SortFunc(control, func(a, b hitl.ControlKey) int { return s.control[a].At.Compare(s.control[b].At) })
	control = control[:min(limit, len(control))]
	for _, k := range control {
		delete(s.control, k)
	}
	return max(len(old), n, len(control)), nil
}
