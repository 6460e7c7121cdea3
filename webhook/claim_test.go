package webhook_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
)

// TestClaimRules is the table of the capacity rules a claim applies: the
// due heads offered in order, and which it takes. Each rule has rows
// that fail when it is broken.
func TestClaimRules(t *testing.T) {
	type due struct{ target, asker string }
	cbA := func(port string) due { return due{"callback:http://127.0.0.1:" + port, "api:a"} }
	cbB := func(port string) due { return due{"callback:http://127.0.0.1:" + port, "api:b"} }
	ep := due{"ops", ""}
	rows := []struct {
		name  string
		claim hitl.WebhookClaim
		due   []due
		want  []int // indexes of due taken
	}{
		{"the zero claim takes all", hitl.WebhookClaim{}, []due{ep, cbA("1"), cbA("1"), cbB("2")}, []int{0, 1, 2, 3}},
		{"at most Limit", hitl.WebhookClaim{Limit: 2}, []due{ep, cbA("1"), cbA("2")}, []int{0, 1}},
		{"callbacks: at most their share, endpoints take the rest",
			hitl.WebhookClaim{Limit: 4, Callbacks: 2}, []due{cbA("1"), cbA("2"), cbA("3"), cbB("4"), ep, ep}, []int{0, 1, 4, 5}},
		{"no callbacks when their share is in use", hitl.WebhookClaim{NoCallbacks: true}, []due{cbA("1"), cbB("2"), ep}, []int{2}},
		{"per target, counting those in flight",
			hitl.WebhookClaim{PerTarget: 2, Targets: map[string]int{"ops": 1, "callback:http://127.0.0.1:1": 2}},
			[]due{ep, ep, cbA("1"), cbA("2")}, []int{0, 3}},
		{"per target, within the claim", hitl.WebhookClaim{PerTarget: 1}, []due{ep, ep, cbA("1"), cbB("1")}, []int{0, 2}},
		{"per asker, counting those in flight",
			hitl.WebhookClaim{PerAsker: 2, Askers: map[string]int{"api:a": 2}}, []due{cbA("1"), cbB("2"), cbA("3")}, []int{1}},
		{"per asker, within the claim, whatever the targets",
			hitl.WebhookClaim{PerAsker: 2}, []due{cbA("1"), cbA("2"), cbA("3"), cbB("4"), cbA("5")}, []int{0, 1, 3}},
		{"the per-asker cap is the callbacks' only", hitl.WebhookClaim{PerAsker: 1, Askers: map[string]int{"": 1}}, []due{ep, ep}, []int{0, 1}},
		{"every rule at once",
			hitl.WebhookClaim{Limit: 5, Callbacks: 3, PerTarget: 1, PerAsker: 2, Askers: map[string]int{"api:b": 1}},
			[]due{cbA("1"), cbA("1"), cbB("2"), cbB("3"), cbA("4"), cbA("5"), ep, ep, due{"ci", ""}}, []int{0, 2, 4, 6, 8}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			p := r.claim.Pick()
			got := []int{}
			for i, d := range r.due {
				if p.Take(d.target, d.asker) {
					got = append(got, i)
				}
			}
			assert.Equal(t, r.want, got)
			assert.Equal(t, r.claim.Limit > 0 && len(got) == r.claim.Limit, p.Full())
		})
	}
}

// TestClaimSkip: what a store may leave out of its read is exactly what
// Take refuses outright.
func TestClaimSkip(t *testing.T) {
	c := hitl.WebhookClaim{PerTarget: 2, PerAsker: 3, NoCallbacks: true,
		Targets: map[string]int{"ops": 2, "ci": 1}, Askers: map[string]int{"api:a": 3, "api:b": 2}}
	targets, askers, callbacks := c.Skip()
	assert.Equal(t, []string{"ops"}, targets)
	assert.Equal(t, []string{"api:a"}, askers)
	assert.True(t, callbacks)
	targets, askers, callbacks = hitl.WebhookClaim{Targets: map[string]int{"ops": 9}}.Skip()
	assert.Empty(t, targets, "no bound: nothing is full")
	assert.Empty(t, askers)
	assert.False(t, callbacks)
}
