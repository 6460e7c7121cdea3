package slackfake

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

func post(api *slack.Client, channel string) error {
	_, _, err := api.PostMessage(channel, slack.MsgOptionText("hi", false))
	return err
}

func TestFailNext429(t *testing.T) {
	srv := New(t, FailOnReject())
	api := newAPI(srv)
	srv.FailNext("chat.postMessage", 1, http.StatusTooManyRequests, 2*time.Second)
	srv.FailNext("chat.postMessage", 1, http.StatusTooManyRequests, 1500*time.Millisecond)

	for _, want := range []time.Duration{2 * time.Second, 2 * time.Second} {
		var rl *slack.RateLimitedError
		if err := post(api, "C1"); !errors.As(err, &rl) || rl.RetryAfter != want {
			t.Fatalf("error %v (%T), want *slack.RateLimitedError after %v", err, err, want)
		}
	}
	if err := post(api, "C1"); err != nil {
		t.Fatalf("after the scripted failures: %v", err)
	}
	calls := srv.Calls("chat.postMessage")
	if len(calls) != 3 || calls[0].Status != 429 || calls[2].Status != 200 || len(srv.Messages("C1")) != 1 {
		t.Fatalf("calls %+v", calls)
	}
	// Failures are per method; "*" matches any.
	srv.FailNext("*", 1, http.StatusInternalServerError, 0)
	var sc slack.StatusCodeError
	if _, err := api.AuthTest(); !errors.As(err, &sc) || sc.Code != 500 {
		t.Fatalf("auth.test error %v (%T)", err, err)
	}
}

func TestDownAndUnreachable(t *testing.T) {
	srv := New(t, FailOnReject())
	api := newAPI(srv)
	srv.SetDown(true)
	var sc slack.StatusCodeError
	if err := post(api, "C1"); !errors.As(err, &sc) || sc.Code != http.StatusServiceUnavailable {
		t.Fatalf("down: %v (%T)", err, err)
	}
	srv.SetDown(false)
	srv.SetUnreachable(true)
	err := post(api, "C1")
	if err == nil || errors.As(err, &sc) {
		t.Fatalf("unreachable: %v (%T), want a transport error", err, err)
	}
	srv.SetUnreachable(false)
	if err := post(api, "C1"); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Messages("C1")); got != 1 {
		t.Fatalf("%d messages stored", got)
	}
}

func TestPostRateLimit(t *testing.T) {
	clock := NewManualClock(time.Unix(1700000000, 0))
	srv := New(t, WithClock(clock), WithPostRateLimit(1, 2), FailOnReject())
	api := newAPI(srv)
	for range 2 {
		if err := post(api, "C1"); err != nil {
			t.Fatal(err)
		}
	}
	var rl *slack.RateLimitedError
	if err := post(api, "C1"); !errors.As(err, &rl) || rl.RetryAfter != time.Second {
		t.Fatalf("third post in a burst of 2: %v", err)
	}
	if err := post(api, "C2"); err != nil {
		t.Fatalf("the limit is per channel: %v", err)
	}
	clock.Advance(time.Second)
	if err := post(api, "C1"); err != nil {
		t.Fatalf("after a second: %v", err)
	}
	if err := post(api, "C1"); !errors.As(err, &rl) {
		t.Fatalf("no token left: %v", err)
	}
	if got := srv.Messages("C1")[0].TS; got != "1700000000.000000" {
		t.Errorf("first ts %q", got)
	}
	if got := srv.Messages("C1")[1].TS; got != "1700000000.000100" {
		t.Errorf("second ts %q", got)
	}
}
