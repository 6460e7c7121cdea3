package fault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hitlbot/hitl/fault"
)

// TestCodeAndMessage: every error reads as a code and a message, and an
// error that is not a *fault.Error never shows its text.
func TestCodeAndMessage(t *testing.T) {
	for name, c := range map[string]struct {
		err           error
		code, message string
	}{
		"nil":           {nil, "", ""},
		"an Error":      {fault.Errorf(fault.ENOTFOUND, "no question %s", "q_1"), fault.ENOTFOUND, "no question q_1"},
		"wrapped Error": {fmt.Errorf("answer: %w", fault.Errorf(fault.ECONFLICT, "taken")), fault.ECONFLICT, "taken"},
		"any other":     {errors.New("open /var/lib/hitl: permission denied"), fault.EINTERNAL, "internal error"},
		"a deadline":    {fmt.Errorf("wait q_1: %w", context.DeadlineExceeded), fault.EDEADLINE, "the wait ran out (its deadline passed)"},
		"cancelled ctx": {context.Canceled, fault.EINTERNAL, "internal error"},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, c.code, fault.Code(c.err))
			assert.Equal(t, c.message, fault.Message(c.err))
		})
	}
	assert.Equal(t, "hitl: invalid: bad", fault.Errorf(fault.EINVALID, "bad").Error())
}
