package service_test

import (
	"errors"
	"testing"

	"github.com/hitlbot/hitl/fault"
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
		{fault.Errorf(fault.EINVALID, "question: required"), true},
		{fault.Errorf(fault.ETOOLARGE, "too large"), true},
		{fault.Errorf(fault.EINTERNAL, "disk"), true},
		{fault.Errorf(fault.EUNAVAILABLE, "store"), true},
		{errors.New("an error without a code is internal"), true},
		{fault.Errorf(fault.EFORBIDDEN, "a refusal"), false},
		{fault.Errorf(fault.ECONFLICT, "an idempotent retry that differs"), false},
		{fault.Errorf(fault.ERATELIMITED, "rate limited"), false},
		{fault.Errorf(fault.EREFUSED, "threshold 0"), false},
		{nil, false},
	} {
		t.Run(fault.Code(tc.err)+": "+fault.Message(tc.err), func(t *testing.T) {
			assert.Equal(t, tc.want, service.CreationFailed(tc.err))
		})
	}
}
