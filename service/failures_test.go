package service_test

import (
	"errors"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/service"
	"github.com/stretchr/testify/assert"
)

// TestCreationFailed: which failed creations count towards the
// creation_errors alert: bad input and the service failing, not the
// rules working.
func TestCreationFailed(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{hitl.Errorf(hitl.EINVALID, "question: required"), true},
		{hitl.Errorf(hitl.ETOOLARGE, "too large"), true},
		{hitl.Errorf(hitl.EINTERNAL, "disk"), true},
		{hitl.Errorf(hitl.EUNAVAILABLE, "store"), true},
		{errors.New("an error without a code is internal"), true},
		{hitl.Errorf(hitl.EFORBIDDEN, "a refusal"), false},
		{hitl.Errorf(hitl.ECONFLICT, "an idempotent retry that differs"), false},
		{hitl.Errorf(hitl.ERATELIMITED, "rate limited"), false},
		{hitl.Errorf(hitl.EREFUSED, "threshold 0"), false},
		{nil, false},
	} {
		t.Run(hitl.ErrorCode(tc.err)+": "+hitl.ErrorMessage(tc.err), func(t *testing.T) {
			assert.Equal(t, tc.want, service.CreationFailed(tc.err))
		})
	}
}
