package slack

import (
	"errors"
	"net"
	"net/url"

	goslack "github.com/slack-go/slack"
)

// transient reports errors a retry may fix: network errors, 5xx, and
// Slack's own "try again" answers.
func transient(err error) bool {
	var se goslack.StatusCodeError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == 408 || se.Code == 429
	}
	var ue *url.Error
	var ne net.Error
	if errors.As(err, &ue) || errors.As(err, &ne) {
		return true
	}
	var sr goslack.SlackErrorResponse
	if errors.As(err, &sr) {
		switch sr.Err {
		case "internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited", "team_added_to_org":
			return true
		}
		return false
	}
	if errors.Is(err, errStoreWrite) {
		return true
	}
	// Errors slack-go returns as plain strings for API errors.
	switch err.Error() {
	case "internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited":
		return true
	}
	return false
}

// refusalHint tells the operator how to fix what Slack refused.
func refusalHint(err error) string {
	var sr goslack.SlackErrorResponse
	if !errors.As(err, &sr) {
		return ""
	}
	switch sr.Err {
	case "not_in_channel":
		return "invite the bot to the channel: /invite @hitl"
	case "channel_not_found":
		return "check the channel id (HITL_SLACK_CHANNEL or the question's channel), and invite the bot if it is private"
	case "invalid_auth", "not_authed", "token_revoked", "account_inactive":
		return "check SLACK_BOT_TOKEN"
	case "missing_scope":
		return "reinstall the app from slack-app-manifest.yaml: a scope is missing"
	case "invalid_blocks", "msg_too_long":
		return "a bug in hitl's rendering: please report it with this log line"
	}
	return ""
}
