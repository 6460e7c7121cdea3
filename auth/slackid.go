package auth

import "regexp"

var (
	slackIDPattern = regexp.MustCompile(`^[UWS][A-Z0-9]{2,20}$`)
	channelPattern = regexp.MustCompile(`^([CGD][A-Z0-9]{2,20}|#?[a-z0-9][a-z0-9._-]{0,79})$`)
)

// IsSlackID reports whether id looks like a Slack user (U…, W…) or user
// group (S…) id.
func IsSlackID(id string) bool { return slackIDPattern.MatchString(id) }

// IsChannel reports whether c names a Slack channel people can be sent
// to: its id (C…, G…, D…) or its name (#deploys, deploys).
func IsChannel(c string) bool { return channelPattern.MatchString(c) }
