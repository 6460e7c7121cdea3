package slack

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/fault"
	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
)

func TestEmailOf(t *testing.T) {
	for name, tc := range map[string]struct {
		err      error
		want     string
		wantCode string
	}{
		"the profile's address":                  {nil, "alice@example.com", ""},
		"a user Slack does not know has none":    {goslack.SlackErrorResponse{Err: "user_not_found"}, "", ""},
		"without users:read.email there is none": {fmt.Errorf("users.info: %w", goslack.SlackErrorResponse{Err: "missing_scope"}), "", ""},
		"any other failure is Slack's for now":   {goslack.StatusCodeError{Code: 503, Status: "503"}, "", fault.EUNAVAILABLE},
		"another Slack error too":                {errors.New("invalid_auth"), "", fault.EUNAVAILABLE},
	} {
		t.Run(name, func(t *testing.T) {
			api := &fakeAPI{GetUserInfo: func(_ context.Context, user string) (*goslack.User, error) {
				if tc.err != nil {
					return nil, tc.err
				}
				u := &goslack.User{ID: user}
				u.Profile.Email = "alice@example.com"
				return u, nil
			}}
			tb := newTestBot(t, api, access.Access{}, nil)
			got, err := tb.EmailOf(context.Background(), "U0ALICE")
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantCode, fault.Code(err))
		})
	}
}
