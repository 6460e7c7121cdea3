package service_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/internal/principaltest"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each part holds only what it uses: no field points at another part (or
// at the Service), and none takes the union of the stores (hitl.Store, or
// Stores, what all the parts together use); a part calls another through
// a small interface declared where it is used.
func TestPartsHoldOnlyWhatTheyUse(t *testing.T) {
	parts := []reflect.Type{
		reflect.TypeFor[service.Questions](), reflect.TypeFor[service.Runs](), reflect.TypeFor[service.Policies](),
		reflect.TypeFor[service.Guard](), reflect.TypeFor[service.Webhooks](), reflect.TypeFor[service.SignIns](),
		reflect.TypeFor[service.Observation](), reflect.TypeFor[service.Log](), reflect.TypeFor[service.Audit](),
	}
	pointers := map[reflect.Type]bool{reflect.TypeFor[*service.Service](): true}
	for _, p := range parts {
		pointers[reflect.PointerTo(p)] = true
	}
	unions := []reflect.Type{reflect.TypeFor[hitl.Store](), reflect.TypeFor[service.Stores]()}
	for _, p := range parts {
		for i := range p.NumField() {
			f := p.Field(i)
			assert.False(t, pointers[f.Type], "%s.%s is a %s: call the part through a small interface declared in %s's file", p.Name(), f.Name, f.Type, p.Name())
			if f.Type.Kind() == reflect.Interface {
				for _, u := range unions {
					assert.False(t, f.Type.Implements(u), "%s.%s (%s) takes the union %s: take the stores by aggregate the part uses", p.Name(), f.Name, f.Type, u)
				}
			}
		}
	}
}

// A part is built alone from what it uses: Questions with a Guard over
// one store and no policy ask, answer and list; "always allow" is refused
// without a policy to learn into.
func TestPartsBuiltAlone(t *testing.T) {
	st, n := memstore.New(), notify.New()
	guard := service.NewGuard(service.GuardConfig{Store: st, Notifier: n})
	qs := service.NewQuestions(service.QuestionsConfig{Store: st, Notifier: n, Guard: guard})
	agent := principaltest.As(context.Background(), "api:agent")
	q, created, err := qs.Create(agent, "alone", hitl.NewQuestion{Question: "Ship it?", Type: hitl.Approval})
	require.NoError(t, err)
	require.True(t, created)
	person := principaltest.As(context.Background(), "slack:U0ALICE")
	_, err = qs.Answer(person, q.ID, hitl.Response{Value: hitl.Approve, Always: true})
	assert.Equal(t, fault.EINVALID, fault.Code(err), "nothing is learnable without a policy: %v", err)
	assert.ErrorContains(t, err, "always allowed")
	got, err := qs.Answer(person, q.ID, hitl.Response{Value: hitl.Approve})
	require.NoError(t, err)
	assert.Equal(t, hitl.StatusAnswered, got.Status)

	log := service.NewLog(st, n)
	evs, _, err := log.RunEvents(principaltest.As(context.Background(), "admin:ops"), "alone", 0, 0)
	require.NoError(t, err)
	assert.Len(t, evs, 2, "asked and answered")
}
