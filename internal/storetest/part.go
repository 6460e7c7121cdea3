package storetest

import (
	"flag"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/service"
)

// calls counts the calls made to a recorded store, by method name.
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *calls) add(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[method]++
}

func (c *calls) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

// storeRec records the calls made to a whole hitl.Store (the parts that
// put a service over the store need all of it).
type storeRec struct {
	questionRec
	reminderRec
	runRec
	eventRec
	policyRec
	retentionRec
	signInRec
	envelopeRec
	webhookRec
}

var (
	_ hitl.Store      = storeRec{}
	_ hitl.Outbox     = outboxRec{}
	_ hitl.MailOutbox = mailRec{}
)

// recordStore, recordPolicy … wrap a store to count its calls in c.
func recordStore(s hitl.Store, c *calls) hitl.Store {
	return storeRec{questionRec{s, c}, reminderRec{s, c}, runRec{s, c}, eventRec{s, c}, policyRec{s, c},
		retentionRec{s, c}, signInRec{s, c}, envelopeRec{s, c}, webhookRec{s, c}}
}

func recordPolicy(s hitl.PolicyStore, c *calls) hitl.PolicyStore { return policyRec{s, c} }
func recordSignIns(s hitl.SignInStore, c *calls) hitl.SignInStore {
	return signInRec{s, c}
}
func recordEnvelopes(s hitl.EnvelopeStore, c *calls) hitl.EnvelopeStore { return envelopeRec{s, c} }
func recordOutbox(s hitl.Outbox, c *calls) hitl.Outbox                  { return outboxRec{s, c} }
func recordMail(s hitl.MailOutbox, c *calls) hitl.MailOutbox            { return mailRec{s, c} }

// contract runs tests, the part of the contract of interface I, on the
// stores open makes, each wrapped by wrap to count the calls made to it
// (recorder.go), directly or through a service over the store. When the
// part passed and every one of its tests ran (a -run pattern that reaches
// below the part, or a -skip, leaves some out), it fails for each method
// of I that none of them called.
func contract[I, S any](t *testing.T, open func(*testing.T) S, wrap func(S, *calls) S, tests func(open func(*testing.T) S)) {
	t.Helper()
	var c calls
	tests(func(t *testing.T) S { return wrap(open(t), &c) })
	if t.Failed() || !whole(t.Name(), testFlag("test.run"), testFlag("test.skip")) {
		return
	}
	iface := reflect.TypeFor[I]()
	for i := range iface.NumMethod() {
		if m := iface.Method(i).Name; c.count(m) == 0 {
			t.Errorf("%s.%s is never called by its part of the contract", iface, m)
		}
	}
}

// services returns a maker of services, each over a new store from open.
func services(open func(*testing.T) hitl.Store) func(*testing.T) *env {
	return func(t *testing.T) *env { return envWith(open(t), service.ServiceConfig{}) }
}

// whole reports whether every subtest of the test named name runs under
// the -test.run pattern run and the -test.skip pattern skip: no skip, and
// no more elements ('/') in run than name has levels. A '/' inside
// brackets counts too, which only leaves a check out.
func whole(name, run, skip string) bool {
	return skip == "" && (run == "" || strings.Count(run, "/") <= strings.Count(name, "/"))
}

// testFlag returns the value of go test's flag name ("" when unset).
func testFlag(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// Run runs every part of the contract of hitl.Store against stores made
// by open (a new, empty one per call), each as a subtest named after its
// interface (TestX/QuestionStore/…). Every method of hitl.Store belongs
// to one of the parts.
func Run(t *testing.T, open func(t *testing.T) hitl.Store) {
	parts := []struct {
		iface reflect.Type
		run   func(t *testing.T)
	}{
		{reflect.TypeFor[hitl.QuestionStore](), func(t *testing.T) { QuestionStore(t, open) }},
		{reflect.TypeFor[hitl.ReminderStore](), func(t *testing.T) { ReminderStore(t, open) }},
		{reflect.TypeFor[hitl.RunStore](), func(t *testing.T) { RunStore(t, open) }},
		{reflect.TypeFor[hitl.EventStore](), func(t *testing.T) { EventStore(t, open) }},
		{reflect.TypeFor[hitl.PolicyStore](), func(t *testing.T) {
			PolicyStore(t, func(t *testing.T) hitl.PolicyStore { return open(t) })
		}},
		{reflect.TypeFor[hitl.RetentionStore](), func(t *testing.T) { RetentionStore(t, open) }},
		{reflect.TypeFor[hitl.SignInStore](), func(t *testing.T) {
			SignInStore(t, func(t *testing.T) hitl.SignInStore { return open(t) })
		}},
		{reflect.TypeFor[hitl.EnvelopeStore](), func(t *testing.T) {
			EnvelopeStore(t, func(t *testing.T) hitl.EnvelopeStore { return open(t) })
		}},
		{reflect.TypeFor[hitl.WebhookOutbox](), func(t *testing.T) { WebhookOutbox(t, open) }},
	}
	inPart := map[string]bool{}
	for _, p := range parts {
		t.Run(p.iface.Name(), p.run)
		for i := range p.iface.NumMethod() {
			inPart[p.iface.Method(i).Name] = true
		}
	}
	store := reflect.TypeFor[hitl.Store]()
	for i := range store.NumMethod() {
		if m := store.Method(i).Name; !inPart[m] {
			t.Errorf("hitl.Store.%s belongs to no part of the contract", m)
		}
	}
}

// QuestionStore runs the contract of hitl.QuestionStore: questions, their
// indexes and lists, keys, deadlines and counts. Questions are created
// through a service over the store, which writes runs and events with
// them, so open returns a whole store.
func QuestionStore(t *testing.T, open func(t *testing.T) hitl.Store) {
	contract[hitl.QuestionStore](t, open, recordStore, func(open func(*testing.T) hitl.Store) {
		newEnv := services(open)
		t.Run("paging returns every question once, in order", func(t *testing.T) { testPaging(t, newEnv(t)) })
		t.Run("paging stays exact across concurrent inserts", func(t *testing.T) { testPagingConcurrent(t, newEnv(t)) })
		t.Run("lists read the index the filter names", func(t *testing.T) { testIndexes(t, newEnv(t)) })
		t.Run("idempotency keys hold until the outcome is received", func(t *testing.T) { testKeys(t, newEnv(t)) })
		t.Run("a refused update writes nothing", func(t *testing.T) { testAtomicUpdate(t, newEnv(t)) })
		t.Run("sealed questions are listed until received", func(t *testing.T) { testSealed(t, newEnv(t)) })
		t.Run("a queue merges a person's indexes, newest first", func(t *testing.T) { testQueue(t, newEnv(t)) })
		t.Run("no list returns an empty page while matching questions exist", func(t *testing.T) { testNoEmptyPage(t, newEnv(t)) })
		t.Run("questions", func(t *testing.T) { runQuestions(t, newEnv) })
		t.Run("answers", func(t *testing.T) { runAnswers(t, newEnv) })
		t.Run("filters", func(t *testing.T) { runFilters(t, newEnv) })
		t.Run("due questions", func(t *testing.T) { runDue(t, newEnv) })
		t.Run("lists by deadline", func(t *testing.T) { runDeadline(t, newEnv) })
		t.Run("escalated lists", func(t *testing.T) { runEscalated(t, open) })
		t.Run("stats", func(t *testing.T) { runStats(t, newEnv) })
	})
}

// ReminderStore runs the contract of hitl.ReminderStore: the reminder
// index, read by the reminder sweep of a service over the store.
func ReminderStore(t *testing.T, open func(t *testing.T) hitl.Store) {
	contract[hitl.ReminderStore](t, open, recordStore, func(open func(*testing.T) hitl.Store) { runReminders(t, open) })
}

// RunStore runs the contract of hitl.RunStore: run records, kept current
// by the questions of a service over the store, and control requests.
func RunStore(t *testing.T, open func(t *testing.T) hitl.Store) {
	contract[hitl.RunStore](t, open, recordStore, func(open func(*testing.T) hitl.Store) {
		newEnv := services(open)
		t.Run("runs are records kept current", func(t *testing.T) { testRuns(t, newEnv(t)) })
		t.Run("control requests", func(t *testing.T) { runSteerRuns(t, newEnv) })
		t.Run("runs list by id, open ones apart", func(t *testing.T) { testRunList(t, newEnv(t)) })
		t.Run("runs are found by the beginning of their id", func(t *testing.T) { testRunsByPrefix(t, newEnv(t)) })
		t.Run("run records", func(t *testing.T) { runRunRecords(t, newEnv) })
	})
}

// EventStore runs the contract of hitl.EventStore: the event log, filled
// by a service over the store.
func EventStore(t *testing.T, open func(t *testing.T) hitl.Store) {
	contract[hitl.EventStore](t, open, recordStore, func(open func(*testing.T) hitl.Store) {
		newEnv := services(open)
		t.Run("the event log numbers appends in order and pages by seq", func(t *testing.T) { testEventLog(t, newEnv(t)) })
		t.Run("a run's events replay in order, page by page, and say how far the log was read", func(t *testing.T) { testRunEvents(t, newEnv(t)) })
		t.Run("a run's pruned events are gone from its replay", func(t *testing.T) { testRunEventsPruned(t, newEnv(t)) })
	})
}

// PolicyStore runs the contract of hitl.PolicyStore: the configured
// policy's state and the learned rules.
func PolicyStore(t *testing.T, open func(t *testing.T) hitl.PolicyStore) {
	contract[hitl.PolicyStore](t, open, recordPolicy, func(open func(*testing.T) hitl.PolicyStore) {
		t.Run("the policy state is nil until put, then the last put", func(t *testing.T) { testPolicyState(t, open(t)) })
		t.Run("learned rules", func(t *testing.T) { runLearned(t, open) })
	})
}

// RetentionStore runs the contract of hitl.RetentionStore: what Prune
// deletes and what it keeps, of questions a service over the store asked.
func RetentionStore(t *testing.T, open func(t *testing.T) hitl.Store) {
	contract[hitl.RetentionStore](t, open, recordStore, func(open func(*testing.T) hitl.Store) {
		newEnv := services(open)
		t.Run("prune deletes only old settled questions and old events", func(t *testing.T) { testPrune(t, newEnv(t)) })
		t.Run("retention", func(t *testing.T) { runRetention(t, newEnv) })
	})
}

// SignInStore runs the contract of hitl.SignInStore.
func SignInStore(t *testing.T, open func(t *testing.T) hitl.SignInStore) {
	contract[hitl.SignInStore](t, open, recordSignIns, func(open func(*testing.T) hitl.SignInStore) { runSignIns(t, open) })
}

// EnvelopeStore runs the contract of hitl.EnvelopeStore.
func EnvelopeStore(t *testing.T, open func(t *testing.T) hitl.EnvelopeStore) {
	contract[hitl.EnvelopeStore](t, open, recordEnvelopes, func(open func(*testing.T) hitl.EnvelopeStore) { runEnvelopes(t, open) })
}

// WebhookOutbox runs the contract of hitl.WebhookOutbox, filled by the
// events of a service over the store (so open returns a whole store).
func WebhookOutbox(t *testing.T, open func(t *testing.T) hitl.Store) {
	contract[hitl.WebhookOutbox](t, open, recordStore, func(open func(*testing.T) hitl.Store) { runWebhooks(t, open) })
}

// Outbox runs the contract of hitl.Outbox, the Slack outbox, against
// outboxes made by open (a new, empty one per call).
func Outbox(t *testing.T, open func(t *testing.T) hitl.Outbox) {
	contract[hitl.Outbox](t, open, recordOutbox, func(open func(*testing.T) hitl.Outbox) { runOutbox(t, open) })
}

// MailOutbox runs the contract of hitl.MailOutbox against outboxes made
// by open (a new, empty one per call).
func MailOutbox(t *testing.T, open func(t *testing.T) hitl.MailOutbox) {
	contract[hitl.MailOutbox](t, open, recordMail, func(open func(*testing.T) hitl.MailOutbox) { runMail(t, open) })
}
