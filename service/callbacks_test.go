package service_test

import (
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/internal/clocktest"
	"github.com/hitlbot/hitl/internal/memstore"
	"github.com/hitlbot/hitl/notify"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallbackCheck: a question's callbackUrl is checked by the check the
// service is given (the webhook edge's CallbackPolicy, as cmd/hitl wires
// it) before anything is stored; a service given none allows no
// callbackUrl.
func TestCallbackCheck(t *testing.T) {
	edge := webhook.CallbackPolicy{AllowedHosts: []string{"agent.example"}}
	for _, tc := range []struct {
		name     string
		check    service.CallbackCheck
		callback string
		ok       bool
	}{
		{"none given, no callbackUrl", nil, "", true},
		{"none given, a callbackUrl", nil, "https://agent.example/hook", false},
		{"the edge's, an allowed host", edge, "https://agent.example/hook", true},
		{"the edge's, another host", edge, "https://elsewhere.example/hook", false},
		{"the edge's, no callbackUrl", edge, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := memstore.New()
			svc := service.NewService(st, service.ServiceConfig{Notifier: notify.New(), Clock: clocktest.New(t0), Callbacks: tc.check})
			q, _, err := svc.Questions.Create(as("api:bot"), "run-1", hitl.NewQuestion{Question: "Deploy?", CallbackURL: tc.callback})
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, tc.callback, q.CallbackURL)
				return
			}
			assert.Equal(t, fault.EINVALID, fault.Code(err))
			assert.ErrorContains(t, err, "webhooks_allowed_hosts")
			qs, err := st.Questions(as("api:bot"), hitl.QuestionFilter{})
			require.NoError(t, err)
			assert.Empty(t, qs.Questions, "nothing is stored")
		})
	}
}
