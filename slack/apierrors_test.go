package slack

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	goslack "github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
)

// TestAPIErrorCode: each failed Slack call is counted under a short,
// bounded label (hitl_slack_api_errors_total's error).
func TestAPIErrorCode(t *testing.T) {
	for want, err := range map[string]error{
		"ratelimited":       &goslack.RateLimitedError{RetryAfter: time.Second},
		"channel_not_found": fmt.Errorf("posting: %w", goslack.SlackErrorResponse{Err: "channel_not_found"}),
		"http_502":          goslack.StatusCodeError{Code: 502, Status: "502 Bad Gateway"},
		"network":           &url.Error{Op: "Post", URL: "https://goslack.com/api/chat.postMessage", Err: errors.New("connection refused")},
		"not_in_channel":    errors.New("not_in_channel"), // slack-go's bare API error strings
		"other":             errors.New("slack: unexpected response: invalid character '<'"),
	} {
		assert.Equal(t, want, apiErrorCode(err), "%v", err)
	}
}

// TestCountedAPI: a failed call is reported with its method; a call the
// bot itself cancelled is not a Slack failure.
func TestCountedAPI(t *testing.T) {
	var got []string
	fail := errors.New("channel_not_found")
	api := countedAPI{&fakeAPI{PostMessage: func(ctx context.Context, _ string, _ url.Values) (string, string, error) {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", fail
	}}, func(method, code string) { got = append(got, method+" "+code) }}
	_, _, err := api.PostMessageContext(context.Background(), "C0HITL")
	assert.ErrorIs(t, err, fail, "the error goes back unchanged")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, _ = api.PostMessageContext(ctx, "C0HITL")
	_, _, _, _ = api.UpdateMessageContext(context.Background(), "C0HITL", "1700000000.000100") // the fake's success
	assert.Equal(t, []string{"chat.postMessage channel_not_found"}, got)
}
