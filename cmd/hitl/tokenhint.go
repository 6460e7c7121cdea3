package main

import "github.com/hitlbot/hitl/fault"

// tokenHint is what a person at the CLI does about an unauthorized
// refusal: the service's message speaks of the HTTP header, and the CLI
// sends the token in HITL_TOKEN.
func tokenHint(err error, e *env) string {
	if fault.Code(err) != fault.EUNAUTHORIZED {
		return ""
	}
	if e.getenv("HITL_TOKEN") == "" {
		return " (the service has tokens: set HITL_TOKEN to yours)"
	}
	return " (HITL_TOKEN is not one of the service's tokens)"
}
